// The real CLI (`lambda-netbench ...`) with every plan target opened as a LoopbackPlatform:
// lets tests run `run` in a child process they can interrupt or kill -9.
// LNBR_PID_FILE: where the platform's iperf3 server PIDs are appended (the test kills them after a kill -9).
// LNBR_INVOKE_DELAY_MS: extra wall time per invocation.
import { appendFileSync } from "node:fs";
import { buildProgram } from "../../src/cli/main.js";
import { LoopbackPlatform } from "./loopback-platform.js";

const program = buildProgram({
  run: {
    openPlatform: async (target) => {
      const platform = await LoopbackPlatform.open({
        target: target.platform === "local" ? target.profile : target.region,
        servers: 2,
        concurrency: 2,
        invokeDelayMs: Number(process.env.LNBR_INVOKE_DELAY_MS ?? 0),
      });
      if (process.env.LNBR_PID_FILE)
        appendFileSync(process.env.LNBR_PID_FILE, `${platform.serverPids().join("\n")}\n`);
      return platform;
    },
  },
});
await program.parseAsync(process.argv);
