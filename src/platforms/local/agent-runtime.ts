/**
 * The lab's Lambda runtime shim: runs inside an environment as a long-lived child process,
 * like the runtime of a Lambda execution environment. Loads the agent bundle
 * (dist/agent/index.mjs, the same file deployed to Lambda), then for each event (one JSON
 * line on stdin) calls its `handler` and writes the response as one JSON line on fd 3
 * (stdout and stderr stay free for whatever the agent logs). Invocations run one at a
 * time; a second event waits for the first to finish, as on Lambda.
 */
import { createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const bundlePath = process.argv[2];
if (!bundlePath) {
  console.error("usage: agent-runtime BUNDLE.mjs");
  process.exit(2);
}
const agent = (await import(pathToFileURL(bundlePath).href)) as {
  handler?: (event: unknown) => Promise<unknown>;
};
const handler = agent.handler;
if (typeof handler !== "function") {
  console.error(`agent-runtime: ${bundlePath} does not export a handler function`);
  process.exit(2);
}
const responses = createWriteStream("", { fd: 3 });
// loaded: the platform starts the function timeout only now (Lambda's init phase is not part of
// it), and a slow host (Node takes ~16 s to start in an emulated guest) is not a timeout
responses.write(`${JSON.stringify({ ready: true })}\n`);

for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
  if (line.trim().length === 0) continue;
  let reply: unknown;
  try {
    reply = { response: await handler(JSON.parse(line)) };
  } catch (error) {
    reply = { runtimeError: error instanceof Error ? error.message : String(error) };
  }
  await new Promise<void>((resolve, reject) =>
    responses.write(`${JSON.stringify(reply)}\n`, (error) => (error ? reject(error) : resolve())),
  );
}
