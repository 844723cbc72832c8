import type { Command } from "commander";
import { handleEvent } from "../../agent/handler.js";
import { printResponse } from "./print-response.js";
import { registerBucketProbeCommand } from "./probe-bucket.js";
import {
  buildIperf3Event,
  formatIperf3Summary,
  type Iperf3CliOptions,
  withIperf3AuthOptions,
} from "./probe-iperf3.js";
import { registerLatencyProbeCommand } from "./probe-latency.js";
import { registerS3ProbeCommands } from "./probe-s3.js";

/**
 * `lambda-netbench probe KIND [options]`: one probe, here, now, through the same code the
 * agent runs (handleEvent), so the CLI and a Lambda invocation validate and measure alike.
 */
export function registerProbeCommand(program: Command): void {
  const probe = program.command("probe").description("run one probe here and now");
  probe
    .command("info")
    .description("describe this execution environment (memory, arch, vCPUs, CPU model, kernel, runtime)")
    .option("--json", "print the result as JSON")
    .action(async (options: { json?: boolean }) => {
      printResponse(await handleEvent({ probe: "info" }), options.json === true);
    });
  withIperf3AuthOptions(
    probe
      .command("iperf3")
      .description("run one iperf3 test against an iperf3 server (stock iperf3 -s or ours)")
      .requiredOption("--host <host>", "server host name or address")
      .option("--port <port>", "server port", "5201")
      .option("--time <seconds>", "test length in seconds (also caps a --bytes test)", "10")
      .option("--parallel <n>", "parallel streams per direction", "1")
      .option("--reverse", "server sends, we receive (iperf3 -R)")
      .option("--bidir", "both directions at once (iperf3 --bidir)")
      .option("--omit <seconds>", "omit the first seconds (TCP slow start) from the results", "0")
      .option("--length <bytes>", "bytes per write (iperf3 -l)", "131072")
      .option("--bytes <n>", "stop after this many bytes (iperf3 -n); 0 = time only", "0")
      .option("--connect-timeout <ms>", "TCP connect timeout in milliseconds", "5000")
      .option("--interval <seconds>", "reporting interval of the -J intervals", "1"),
  )
    .option("--json", "print the iperf3 -J style document (plus cpuSeconds) as JSON")
    .action(async (options: Iperf3CliOptions & { json?: boolean }) => {
      let event: Record<string, unknown>;
      try {
        event = await buildIperf3Event(options, process.env);
      } catch (error) {
        console.error(`lambda-netbench: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = 2;
        return;
      }
      printResponse(await handleEvent(event), options.json === true, formatIperf3Summary);
    });
  registerS3ProbeCommands(probe);
  registerBucketProbeCommand(probe);
  registerLatencyProbeCommand(probe);
}
