import { appendFile, readFile } from "node:fs/promises";
import { inNamespace } from "./namespaces.js";
import { directObjectsMapFile, directObjectsMapLine, SERVED_FROM_FILE_HEADER } from "./object-store.js";
import { runCommand } from "./run-command.js";
import type { LabState } from "./state-file.js";

/** The key of the lab's test object of a given size (one object per size, reused across runs). */
export function testObjectKey(bytes: number): string {
  return `lnb-test-objects/${bytes}-bytes`;
}

/**
 * Size of an object as the lab's S3 server reports it (HEAD over HTTPS, checked against the
 * lab's CA, from inside the cloud namespace), or null when it does not exist.
 */
export async function headObjectBytes(state: LabState, key: string): Promise<number | null> {
  return (await headObject(state, key))?.bytes ?? null;
}

async function headObject(
  state: LabState,
  key: string,
): Promise<{ bytes: number; fromFile: boolean } | null> {
  const url = `${state.s3.endpoint}/${state.s3.bucket}/${key.split("/").map(encodeURIComponent).join("/")}`;
  const [file, args] = inNamespace(state.cloudNamespace, "curl", [
    "--silent",
    "--show-error",
    "--head",
    "--cacert",
    state.s3.caFile,
    "--max-time",
    "20",
    url,
  ]);
  const { stdout } = await runCommand(file, args);
  const status = Number(stdout.match(/^HTTP\/[0-9.]+ (\d{3})/)?.[1]);
  if (status === 404) return null;
  if (status !== 200)
    throw new Error(`lab: HEAD ${url} answered ${Number.isNaN(status) ? "nothing" : status}`);
  const length = stdout.match(/^content-length:\s*(\d+)/im)?.[1];
  if (length === undefined) throw new Error(`lab: HEAD ${url} has no Content-Length`);
  return { bytes: Number(length), fromFile: new RegExp(`^${SERVED_FROM_FILE_HEADER}:`, "im").test(stdout) };
}

/**
 * Lists a verified object in nginx's direct-objects map and reloads nginx (SIGHUP to its
 * master), then waits until HEAD is answered from the file.
 */
export async function serveObjectFromFile(state: LabState, key: string): Promise<void> {
  const mapFile = directObjectsMapFile(state.dir);
  const line = directObjectsMapLine(key);
  const current = await readFile(mapFile, "utf8").catch(() => "");
  if (!current.includes(line)) await appendFile(mapFile, line);
  const nginx = state.processes.find((p) => p.role === "nginx");
  if (nginx) process.kill(nginx.pid, "SIGHUP");
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if ((await headObject(state, key))?.fromFile) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `lab: nginx does not serve ${key} from its file after a reload; see ${state.dir}/nginx-error.log`,
  );
}
