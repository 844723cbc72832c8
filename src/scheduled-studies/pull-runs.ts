import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GetObjectCommand, paginateListObjectsV2, type S3Client } from "@aws-sdk/client-s3";
import type { RunManifest } from "../results/manifest.js";
import type { ResultRecord } from "../results/result-record.js";
import { readManifest, resultsFile, writeManifest } from "../results/run-directory.js";
import { listKeys, readJsonObject } from "./recorder.js";
import { runKeys, runsPrefix } from "./schedule-naming.js";

/**
 * `runs pull`: copies the scheduled runs of a region's bucket into local run directories of the
 * same format `run` writes (manifest.json + results.jsonl), so `report` and `compare` read them
 * like any other run. A run already pulled complete is not downloaded again; an incomplete one
 * (still running, or stopped) is pulled again each time.
 */
export interface PullOptions {
  s3: S3Client;
  bucket: string;
  /** Parent directory of the run directories (runs/). */
  outDir: string;
  /** Only runs started at or after this time. */
  since?: Date;
  log?: (line: string) => void;
  /** Downloads at once. */
  concurrency?: number;
}

export interface PullResult {
  pulled: Array<{ runId: string; records: number; complete: boolean }>;
  upToDate: string[];
}

/** The start time in a run id (`2026-11-30T06-00-03Z-seed...`), or null. */
export function runIdTime(runId: string): Date | null {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})Z/.exec(runId);
  if (!match) return null;
  const time = new Date(`${match[1]}T${match[2]}:${match[3]}:${match[4]}Z`);
  return Number.isNaN(time.getTime()) ? null : time;
}

export async function listRunIds(s3: S3Client, bucket: string): Promise<string[]> {
  const ids: string[] = [];
  const pages = paginateListObjectsV2({ client: s3 }, { Bucket: bucket, Prefix: runsPrefix, Delimiter: "/" });
  for await (const page of pages)
    for (const prefix of page.CommonPrefixes ?? [])
      if (prefix.Prefix) ids.push(prefix.Prefix.slice(runsPrefix.length).replace(/\/$/, ""));
  return ids.sort();
}

async function readText(s3: S3Client, bucket: string, key: string): Promise<string> {
  const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (response.Body as { transformToString(): Promise<string> }).transformToString();
}

async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export async function pullRuns(options: PullOptions): Promise<PullResult> {
  const log = options.log ?? (() => {});
  const result: PullResult = { pulled: [], upToDate: [] };
  for (const runId of await listRunIds(options.s3, options.bucket)) {
    const started = runIdTime(runId);
    if (options.since && (started === null || started < options.since)) continue;
    const dir = join(options.outDir, runId);
    const local = await readManifest(dir).catch(() => null);
    if (local?.completedAt) {
      result.upToDate.push(runId);
      continue;
    }
    const keys = runKeys(runId);
    const manifest = await readJsonObject<RunManifest>(options.s3, options.bucket, keys.manifest);
    if (!manifest) {
      log(`${runId}: no manifest.json yet, skipped`);
      continue;
    }
    const recordKeys = await listKeys(options.s3, options.bucket, keys.records);
    const records = (
      await mapLimited(recordKeys, options.concurrency ?? 8, async (key) =>
        readText(options.s3, options.bucket, key),
      )
    )
      .flatMap((text) => text.split("\n"))
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as ResultRecord);
    // the order they were invoked in, as `run` appends them
    records.sort((a, b) =>
      a.startedAt !== b.startedAt ? (a.startedAt < b.startedAt ? -1 : 1) : a.cellId < b.cellId ? -1 : 1,
    );
    await mkdir(dir, { recursive: true });
    const temporary = join(dir, `${resultsFile}.tmp`);
    await writeFile(temporary, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
    await rename(temporary, join(dir, resultsFile));
    await writeManifest(dir, manifest);
    result.pulled.push({ runId, records: records.length, complete: manifest.completedAt !== null });
    log(`${runId}: ${records.length} record(s)${manifest.completedAt ? "" : " (incomplete)"}`);
  }
  return result;
}
