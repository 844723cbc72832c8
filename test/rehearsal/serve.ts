// Keeps a rehearsal up for trying commands by hand (the walkthrough in docs/aws.md was recorded
// this way): `sudo node --import tsx test/rehearsal/serve.ts ENV_FILE` writes the environment a
// shell needs to ENV_FILE (source it), and tears everything down on SIGINT or SIGTERM.
import { writeFile } from "node:fs/promises";
import { startRehearsal } from "./rehearsal.js";

const envFile = process.argv[2];
if (!envFile) {
  console.error("usage: serve.ts ENV_FILE");
  process.exit(2);
}
const rehearsal = await startRehearsal();
const lines = Object.entries(rehearsal.env)
  .filter(([key]) => key.startsWith("AWS_"))
  .map(([key, value]) => `export ${key}=${value}`);
await writeFile(envFile, `${lines.join("\n")}\n`);
console.log(
  `rehearsal up: front ${rehearsal.front.url}, moto ${rehearsal.moto.url} (pid ${rehearsal.moto.pid}); env in ${envFile}`,
);
// moto's failures as they happen: where the rehearsal (or moto) falls short
const reported = { moto: 0, account: 0 };
setInterval(() => {
  for (const line of rehearsal.front.motoFailures.slice(reported.moto)) console.log(`moto failed: ${line}`);
  for (const line of rehearsal.ticker.problems.slice(reported.account)) console.log(`account: ${line}`);
  reported.moto = rehearsal.front.motoFailures.length;
  reported.account = rehearsal.ticker.problems.length;
}, 1_000);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await rehearsal.stop();
  console.log(
    `rehearsal down; answered here: ${rehearsal.front.answered.length} calls; invocations bridged: ${rehearsal.bridge.invocations.length}`,
  );
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
