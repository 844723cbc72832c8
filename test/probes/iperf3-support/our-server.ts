import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import type { NetnsPair } from "../../helpers/netns-pair.js";

/**
 * Our iperf3 server through the built CLI (`bin/lambda-netbench.js iperf3-server`, so run
 * `npm run build` first) in the pair's server namespace, bound to its address.
 */
export function spawnOurServer(pair: NetnsPair, port: number, stdio: StdioOptions): ChildProcess {
  return spawn(
    "ip",
    [
      ...pair.exec(pair.serverNs).slice(1),
      process.execPath,
      "bin/lambda-netbench.js",
      "iperf3-server",
      "--port",
      String(port),
      "--bind",
      pair.serverAddress,
    ],
    { stdio },
  );
}
