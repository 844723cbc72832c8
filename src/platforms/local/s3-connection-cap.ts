import { readFile, writeFile } from "node:fs/promises";
import { MAX_PACED_CONNECTION_BYTES_PER_SECOND } from "../../plan/lab-profile.js";
import { type LabState, processStartTicks } from "./state-file.js";

/**
 * How long each paced send of a capped GET lasts. nginx's limit_rate waits after each send for
 * (bytes * 1000 / rate) ms, rounded down, and otherwise only holds a connection to one second
 * of credit ahead of the rate. Sends of a few hundred KiB (a proxied response's busy buffers)
 * round 5.8 ms down to 5: one connection read 101-103 MB/s against a 90 MB/s cap. Sends of
 * exactly SEND_MS of data at the cap make the wait whole, so the cap holds; the timer's own
 * latency can only slow a connection (83-87 MB/s against 90 on this loaded 2-core host).
 */
export const CAPPED_SEND_MS = 10;
/** nginx's own default send size, used when no cap is set. */
const UNCAPPED_SEND_BYTES = 2 * 1024 * 1024;
/** What the GET proxy may hand the client at once; a paced send must fit in it. */
export const GET_BUSY_BUFFER_BYTES = 2 * 1024 * 1024;

/** Bytes per send for a cap: CAPPED_SEND_MS at the cap, rounded up so the wait is a whole number of ms. */
export function cappedSendBytes(bytesPerSecond: number | null): number {
  if (bytesPerSecond === null) return UNCAPPED_SEND_BYTES;
  const sendBytes = Math.ceil((bytesPerSecond * CAPPED_SEND_MS) / 1000);
  if (sendBytes > GET_BUSY_BUFFER_BYTES)
    throw new RangeError(
      `s3ConnectionBytesPerSecond ${bytesPerSecond} is above what the lab can pace (at most ${MAX_PACED_CONNECTION_BYTES_PER_SECOND} bytes/s)`,
    );
  return sendBytes;
}

/** nginx directives that cap one connection's GET rate (the profile's S3 per-connection cap). */
export function connectionCapDirectives(bytesPerSecond: number | null): {
  limitRate: string;
  sendChunk: string;
} {
  return {
    limitRate: `limit_rate ${bytesPerSecond ?? 0};`,
    sendChunk: `sendfile_max_chunk ${cappedSendBytes(bytesPerSecond)};`,
  };
}

/** Changes nginx's per-request rate cap and reloads it. */
export async function setS3ConnectionCap(state: LabState, bytesPerSecond: number | null): Promise<void> {
  const config = await readFile(state.s3.nginxConfigFile, "utf8");
  const directives = connectionCapDirectives(bytesPerSecond);
  await writeFile(
    state.s3.nginxConfigFile,
    config
      .replace(/limit_rate \d+;/, directives.limitRate)
      .replace(/sendfile_max_chunk \d+;/, directives.sendChunk),
  );
  const nginx = state.processes.find((p) => p.role === "nginx");
  if (nginx && (await processStartTicks(nginx.pid)) === nginx.startTicks) process.kill(nginx.pid, "SIGHUP");
  state.s3.s3ConnectionBytesPerSecond = bytesPerSecond;
}

/**
 * What the lab's S3 (nginx `limit_rate`, per request) allows one connection: S3's own
 * per-connection rate (the profile's `s3ConnectionBytesPerSecond`) and the profile's per-flow
 * cap (`flowMegabitsPerSecond`, as TCP payload: profiles.ts flowCapBitsPerSecond), whichever is
 * lower, in bytes per second; null for no cap. nginx counts what it hands to TLS, so this is
 * payload, like the flow cap's own figure. (Plain numbers in: profiles.ts imports this module.)
 */
export function s3ConnectionCapBytesPerSecond(caps: {
  s3ConnectionBytesPerSecond: number | null;
  flowBitsPerSecond: number | null;
}): number | null {
  const flowBytes = caps.flowBitsPerSecond === null ? null : Math.floor(caps.flowBitsPerSecond / 8);
  const present = [caps.s3ConnectionBytesPerSecond, flowBytes].filter((cap): cap is number => cap !== null);
  return present.length === 0 ? null : Math.min(...present);
}

/** Sets the running lab's S3 cap when it differs (a lab started for another profile). */
export async function applyS3ConnectionCap(state: LabState, bytesPerSecond: number | null): Promise<void> {
  if (state.s3.s3ConnectionBytesPerSecond !== bytesPerSecond) await setS3ConnectionCap(state, bytesPerSecond);
}
