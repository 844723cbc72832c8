import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { AgentEventInput } from "../../src/agent/event.js";
import { handleEvent } from "../../src/agent/handler.js";
import { runCommand } from "../../src/cli/commands/run.js";
import type { InvocationOutcome } from "../../src/results/invocation-outcome.js";
import type { PlatformFacts } from "../../src/results/platform-facts.js";
import type { EnvironmentVariant, Platform, ProbeEndpoints } from "../../src/runner/platform.js";
import { loopProfile } from "../helpers/loopback-platform.js";

/**
 * A run whose invocations fail exits non-zero (scripts and CI read the exit code) and says how
 * many failed: six planned invocations, the three iperf3 ones failing as an agent killed under
 * them does, the three info ones succeeding through the real agent handler.
 */
class HalfFailingPlatform implements Platform {
  readonly name = "local" as const;
  readonly target = "loop-a";
  async facts(): Promise<PlatformFacts> {
    return {
      platform: "local",
      target: this.target,
      emulated: true,
      unshaped: true,
      quotaBitsPerSecond: null,
      details: {},
    };
  }
  maxConcurrency(): number {
    return 1;
  }
  async prepare(_variants: EnvironmentVariant[]): Promise<void> {}
  endpoints(): ProbeEndpoints {
    return { iperf3: { host: "198.18.0.1", ports: [5201] } };
  }
  async ensureTestObject(): Promise<string> {
    throw new Error("no S3 here");
  }
  async invoke(_variant: EnvironmentVariant, event: AgentEventInput): Promise<InvocationOutcome> {
    const startedAt = new Date().toISOString();
    if (event.probe === "iperf3")
      return {
        response: null,
        failure: { kind: "platform", message: "Runtime exited with signal SIGKILL" },
        startedAt,
        durationSeconds: 0.1,
      };
    return { response: await handleEvent(event), failure: null, startedAt, durationSeconds: 0.1 };
  }
  async dispose(): Promise<void> {}
}

let work: string;
before(async () => {
  work = await mkdtemp(join(tmpdir(), "lnb-exit-code-"));
  await writeFile(
    join(work, "plan.json"),
    JSON.stringify({
      name: "sixinvocations",
      targets: [{ platform: "local", profile: "loop-a" }],
      profiles: [loopProfile("loop-a")],
      memoryMb: [1024],
      repetitions: 3,
      probes: [{ kind: "iperf3", timeSeconds: 1, parallel: 1 }, { kind: "info" }],
    }),
  );
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

test("a run with 3 of 6 invocations failed exits 1, saying how many failed", async (t) => {
  const errors: string[] = [];
  t.mock.method(console, "error", (...parts: unknown[]) => errors.push(parts.join(" ")));
  t.mock.method(console, "log", () => {});
  t.mock.method(process.stdout, "write", () => true);
  const code = await runCommand(
    { config: join(work, "plan.json"), out: work },
    { openPlatform: async () => new HalfFailingPlatform() },
  );
  t.mock.restoreAll();
  assert.equal(code, 1, errors.join("\n"));
  assert.match(errors.join("\n"), /Failed: 3 of 6 invocations failed/);
  assert.match(errors.join("\n"), /lambda-netbench run --config .*plan\.json/);
});
