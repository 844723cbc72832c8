import { readFile, writeFile } from "node:fs/promises";
import { flowCapBitsPerSecond, type LabProfile } from "./profiles.js";
import { type LabState, processStartTicks } from "./state-file.js";

/**
 * What the lab's S3 (nginx `limit_rate`, per request) allows one connection for a profile: S3's
 * own per-connection rate (`s3ConnectionBytesPerSecond`) and the profile's per-flow cap
 * (`flowMegabitsPerSecond`, as TCP payload), whichever is lower, in bytes per second; null for
 * no cap. nginx counts what it hands to TLS, so this is payload, like the flow cap's own figure.
 */
export function s3ConnectionCapBytesPerSecond(profile: LabProfile): number | null {
  const flowBits = flowCapBitsPerSecond(profile);
  const caps = [profile.s3ConnectionBytesPerSecond, flowBits === null ? null : Math.floor(flowBits / 8)];
  const present = caps.filter((cap): cap is number => cap !== null);
  return present.length === 0 ? null : Math.min(...present);
}

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

/** Sets the running lab's S3 cap to the profile's when it differs (a lab started for another profile). */
export async function applyS3ConnectionCap(state: LabState, profile: LabProfile): Promise<void> {
  const bytesPerSecond = s3ConnectionCapBytesPerSecond(profile);
  if (state.s3.s3ConnectionBytesPerSecond !== bytesPerSecond) await setS3ConnectionCap(state, bytesPerSecond);
}
