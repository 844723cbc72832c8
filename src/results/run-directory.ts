import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { mkdir, open, readFile, rename, stat, truncate } from "node:fs/promises";
import { join } from "node:path";
import type { RunManifest } from "./manifest.js";
import type { ResultRecord } from "./result-record.js";

export const manifestFile = "manifest.json";
export const resultsFile = "results.jsonl";

/** runs/2026-11-29T19-40-12Z-quick: sortable, unique per second, safe in every filesystem. */
export function runDirectoryName(name: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-");
  return `${stamp}-${name}`;
}

export async function createRunDirectory(parent: string, name: string, now: Date): Promise<string> {
  await mkdir(parent, { recursive: true });
  for (let attempt = 0; ; attempt += 1) {
    const dir = join(parent, runDirectoryName(name, now) + (attempt > 0 ? `-${attempt + 1}` : ""));
    try {
      await mkdir(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 100) throw error;
    }
  }
}

/** Written to a temporary file, fsync'ed and renamed: a crash leaves the old or the new manifest, never half. */
export async function writeManifest(dir: string, manifest: RunManifest): Promise<void> {
  const path = join(dir, manifestFile);
  const temporary = `${path}.tmp`;
  const handle = await open(temporary, "w");
  try {
    await handle.writeFile(`${JSON.stringify(manifest, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

export async function readManifest(dir: string): Promise<RunManifest> {
  const path = join(dir, manifestFile);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new Error(`${dir} is not a run directory (no ${manifestFile})`);
  }
  const manifest = JSON.parse(text) as RunManifest;
  if (manifest.schemaVersion !== 1)
    throw new Error(`${path}: unknown schemaVersion ${manifest.schemaVersion}`);
  return manifest;
}

/**
 * Reads results.jsonl. A line cut short by a crash (kill -9 mid-write) can only be the last one;
 * it is skipped and reported as `truncatedTail` so the writer can cut it off before appending.
 */
export async function readRecords(
  dir: string,
): Promise<{ records: ResultRecord[]; truncatedTail: boolean; validBytes: number }> {
  let text: string;
  try {
    text = await readFile(join(dir, resultsFile), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { records: [], truncatedTail: false, validBytes: 0 };
    throw error;
  }
  const records: ResultRecord[] = [];
  let offset = 0;
  let validBytes = 0;
  let truncatedTail = false;
  while (offset < text.length) {
    const end = text.indexOf("\n", offset);
    const line = end === -1 ? text.slice(offset) : text.slice(offset, end);
    const next = end === -1 ? text.length : end + 1;
    if (line.trim() !== "") {
      try {
        if (end === -1) throw new Error("no newline");
        records.push(JSON.parse(line) as ResultRecord);
      } catch {
        if (end !== -1) throw new Error(`${join(dir, resultsFile)}: line ${records.length + 1} is not JSON`);
        truncatedTail = true;
        break;
      }
    }
    validBytes += Buffer.byteLength(text.slice(offset, next));
    offset = next;
  }
  return { records, truncatedTail, validBytes };
}

/**
 * Appends records one line at a time and fsyncs each before the next: a record is on disk
 * when append() resolves, so kill -9 loses at most the invocations still in flight.
 */
export class ResultsWriter {
  private readonly fd: number;
  private closed = false;

  private constructor(fd: number) {
    this.fd = fd;
  }

  static async open(dir: string): Promise<ResultsWriter> {
    const path = join(dir, resultsFile);
    const { truncatedTail, validBytes } = await readRecords(dir);
    if (truncatedTail) await truncate(path, validBytes);
    else {
      // a file ending without a newline would glue the next record onto the last one
      const size = await stat(path).then(
        (s) => s.size,
        () => 0,
      );
      if (size !== validBytes) await truncate(path, validBytes);
    }
    return new ResultsWriter(openSync(path, "a"));
  }

  // Synchronous write + fsync: no other record can interleave, and nothing is buffered in this process.
  append(record: ResultRecord): void {
    if (this.closed) throw new Error("results writer is closed");
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
