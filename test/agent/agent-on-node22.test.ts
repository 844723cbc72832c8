import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { agentNode, NODE22_CACHE_BINARY } from "../../src/platforms/local/agent-node.js";
import { AgentProcess } from "../../src/platforms/local/agent-process.js";
import { type Iperf3Server, startIperf3Server } from "../../src/probes/iperf3/server.js";

// Lambda runs the agent on nodejs22.x: the bundle, loaded by the lab's runtime shim exactly as
// the lab starts it, must load and answer on Node 22 (scripts/setup.sh installs it).
const installed = Boolean(process.env.LAMBDA_NETBENCH_AGENT_NODE) || existsSync(NODE22_CACHE_BINARY);
const skip = installed
  ? false
  : `SKIPPED: Node 22 is not installed at ${NODE22_CACHE_BINARY} (run scripts/setup.sh) and LAMBDA_NETBENCH_AGENT_NODE is not set`;
if (skip) console.error(`\n*** ${skip} ***\n`);

let server: Iperf3Server;
let agent: AgentProcess;

before(async () => {
  if (skip) return;
  server = await startIperf3Server({ port: 0, host: "127.0.0.1" });
  agent = new AgentProcess(
    { namespace: null, cgroup: null, memoryMb: 1024, functionName: "node22-check" },
    {},
  );
});
after(async () => {
  await agent?.kill();
  await server?.close();
});

const unexpectedExit = async () => ({ kind: "platform" as const, message: "the agent exited" });

test("the lab runs the agent on Node 22", { skip }, () => {
  assert.match(agentNode().version, /^v22\.\d+\.\d+$/);
  assert.notEqual(agentNode().source, "the CLI's own Node");
});

test("the bundle loads on Node 22 and its info probe reports that runtime", {
  skip,
  timeout: 120_000,
}, async () => {
  const result = await agent.invoke({ probe: "info" }, 60, undefined, unexpectedExit);
  assert.ok(result.response?.ok, JSON.stringify(result));
  const detail = result.response.detail as Record<string, unknown>;
  assert.equal(detail.nodeVersion, agentNode().version);
  assert.equal(detail.runtime, `node ${agentNode().version}`);
  assert.equal(detail.memoryLimitMb, 1024);
});

test("on Node 22 the agent measures: an iperf3 upload against our server", {
  skip,
  timeout: 120_000,
}, async () => {
  const port = server.port;
  const result = await agent.invoke(
    { probe: "iperf3", host: "127.0.0.1", port, timeSeconds: 1 },
    60,
    undefined,
    unexpectedExit,
  );
  assert.ok(result.response?.ok, JSON.stringify(result));
  assert.equal(result.response.ok && result.response.probe, "iperf3");
  const summary = result.response.ok ? result.response.summary : null;
  assert.ok(summary && summary.bytes > 0, JSON.stringify(summary));
});
