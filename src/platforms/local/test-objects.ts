import { inNamespace } from "./namespaces.js";
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
  return Number(length);
}
