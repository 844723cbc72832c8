import { readFile, writeFile } from "node:fs/promises";
import { type LabState, processStartTicks } from "./state-file.js";

/** Changes nginx's per-request rate cap (the profile's S3 per-connection cap) and reloads it. */
export async function setS3ConnectionCap(state: LabState, bytesPerSecond: number | null): Promise<void> {
  const config = await readFile(state.s3.nginxConfigFile, "utf8");
  await writeFile(
    state.s3.nginxConfigFile,
    config.replace(/limit_rate \d+;/, `limit_rate ${bytesPerSecond ?? 0};`),
  );
  const nginx = state.processes.find((p) => p.role === "nginx");
  if (nginx && (await processStartTicks(nginx.pid)) === nginx.startTicks) process.kill(nginx.pid, "SIGHUP");
  state.s3.s3ConnectionBytesPerSecond = bytesPerSecond;
}
