import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, test } from "node:test";
import { WIRE_BYTES_PER_PAYLOAD_BYTE } from "../../src/plan/lab-profile.js";
import { removeLab } from "../../src/platforms/local/cleanup.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { cliArgv } from "../helpers/cli-process.js";
import { useScratch } from "../helpers/measured-run.js";
import { rootSkip } from "../helpers/root-gate.js";
import { scaledProfile } from "../helpers/scaled-profile.js";
import { ensureBuilt } from "../platforms/lab-helpers.js";

/**
 * Issue 27, "Sustained never above the ceiling", on the lab through the CLI as a user runs it
 * (`run --config`, on a private lab of the CLI's process). The profile is default-625's case: one
 * S3 connection capped between the quota and the burst's peak, so a lone connection drains the
 * bucket only at its cap less the quota and runs flat inside the burst with no edge to find. At
 * 1/8 (scaled-profile.ts): quota 78 Mbit/s on the wire (74.7 payload), peak 350, the lab's S3
 * (nginx, per request) paces one connection to 15 MB/s (120 Mbit/s payload), bucket 40 MB: one
 * connection passes it in ~7 s (101 MB). The cap is 1.6x the quota, not default-625's 1.2x:
 * nginx's pacing falls up to ~17% short of its cap on a loaded host (docs/lab.md), which at 1.2x
 * would leave a connection at the quota with nothing to drain the bucket.
 *
 * - A 40 MiB GET (~3 s at the cap) ends inside the burst: no sustained rate above the quota in
 *   any printed output (progress, verdict, console summary, report.json, summary.csv, report.md),
 *   and each says it ended inside the burst, with no more bytes above the quota than the bucket held.
 * - The same cell with 384 MiB (~40 s: the burst over well before half of it, however short of
 *   its cap nginx falls) gives the quota's payload rate as sustained, within 5%, everywhere.
 *
 * Each cell runs in its own `run`, so each starts on a full bucket and has the verdict to itself
 * (a verdict names the best variant of "S3 GET single stream" only).
 */
const skip = rootSkip("the ceiling test on the lab");
const scratch = useScratch("lnb-ceiling-");
const scaled = scaledProfile(
  {
    name: "ceiling-lab",
    description: "one S3 connection capped between the quota and the burst's peak, a bucket it drains slowly",
    download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
    burst: { peakMegabitsPerSecond: 2_800, bytes: 320_000_000 },
    s3ConnectionBytesPerSecond: 120_000_000,
  },
  8,
);
const MEMORY_MB = 2_048;
/** The quota in force, payload bit/s: the profile's wire rate less the frame overhead (ceiling.ts). */
const ceilingBitsPerSecond =
  ((scaled.profile.download[0]?.megabitsPerSecond ?? 0) * 1e6) / WIRE_BYTES_PER_PAYLOAD_BYTE;
/** What the report may call sustained: the quota and the noise ceiling.ts allows (5%). */
const bandMbps = (ceilingBitsPerSecond * 1.05) / 1e6;
/** The bucket above the quota, payload bytes: nothing can move more than this above it. */
const bucketPayloadBytes = (scaled.profile.burst?.bytes ?? 0) / WIRE_BYTES_PER_PAYLOAD_BYTE;

const labs: string[] = [];
after(async () => {
  for (const lab of labs) await removeLab(lab);
});

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  dir: string;
}

/** `run --config` with one s3-get cell of one connection, on the CLI's own private lab. */
async function runCell(name: string, objectMib: number, chunkMib: number): Promise<CliRun> {
  const out = join(scratch(), name);
  await mkdir(out);
  const config = join(out, "plan.json");
  await writeFile(
    config,
    JSON.stringify({
      name,
      targets: [{ platform: "local", profile: scaled.name }],
      profiles: [scaled.profile],
      memoryMb: [MEMORY_MB],
      repetitions: 1,
      probes: [{ kind: "s3-get", objectMib, concurrency: 1, chunkMib }],
    }),
  );
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve) => {
      const args = cliArgv(["run", "--config", config], "run-cli-private-lab");
      const child = execFile(
        process.execPath,
        [...args, "--out", out],
        { maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }),
      );
      // its private lab, removed after the tests however the run ends
      if (child.pid) labs.push(privateLabName(child.pid));
    },
  );
  const [dir] = (await readdir(out)).filter((entry) => entry.endsWith(`-${name}`));
  assert.ok(dir, `the run directory under ${out}\n${stdout}\n${stderr}`);
  return { code, stdout, stderr, dir: join(out, dir) };
}

const number = (text: string) => Number(text.replaceAll(",", ""));
/** Whitespace as one space: wrapped lines read as one. */
const flat = (text: string) => text.replace(/\s+/g, " ");

/** Every rate a text calls sustained, Mbit/s: "75 Mbit/s sustained", "the 75 sustained", "sustained 75 Mbit/s". */
function sustainedFiguresMbps(text: string): number[] {
  const figure = String.raw`(\d[\d,]*(?:\.\d+)?)`;
  const pattern = new RegExp(
    `${figure}\\*?(?: Mbit/s)? sustained|sustained (?:plateau |rate |median )?${figure} Mbit/s`,
    "g",
  );
  return [...flat(text).matchAll(pattern)].map((m) => number((m[1] ?? m[2]) as string));
}

/** Every number (bit/s) report.json keeps under a sustained or plateau key; counts and seconds (< 1e6) left out. */
function sustainedRatesInJson(value: unknown, path = ""): Array<{ path: string; bitsPerSecond: number }> {
  if (Array.isArray(value)) return value.flatMap((v, i) => sustainedRatesInJson(v, `${path}[${i}]`));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([key, v]) => sustainedRatesInJson(v, `${path}.${key}`));
  return typeof value === "number" && /sustained|plateau/i.test(path) && value >= 1e6
    ? [{ path, bitsPerSecond: value }]
    : [];
}

/** summary.csv as rows keyed by header (RFC 4180: quoted fields, "" inside them). */
function csvRows(text: string): Array<Record<string, string>> {
  const records: string[][] = [];
  let field = "";
  let row: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i += 1;
      row.push(field);
      records.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field !== "" || row.length > 0) records.push([...row, field]);
  const [header, ...body] = records;
  return body.map((cells) => Object.fromEntries((header ?? []).map((h, i) => [h, cells[i] ?? ""])));
}

interface Outputs {
  printed: string;
  reportJson: {
    cells: Array<{
      probeLabel: string;
      sustained: { median: number } | null;
      sustainedNullReasons: string[];
      ceiling: { bitsPerSecond: number } | null;
      burst: { median: number } | null;
      insideBurst: { repetitions: number; excessBytes: { median: number } | null };
    }>;
  };
  csv: Array<Record<string, string>>;
  markdown: string;
}

/** What the run printed and wrote; checks that nothing in it calls a rate above the quota sustained. */
async function outputsOf(run: CliRun): Promise<Outputs> {
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const printed = `${run.stderr}\n${run.stdout}`;
  const reportJson = JSON.parse(await readFile(join(run.dir, "report.json"), "utf8"));
  const csv = csvRows(await readFile(join(run.dir, "summary.csv"), "utf8"));
  const markdown = await readFile(join(run.dir, "report.md"), "utf8");
  for (const [where, text] of [
    ["progress, verdict and console summary", printed],
    ["report.md", markdown],
  ] as const) {
    const above = sustainedFiguresMbps(text).filter((mbps) => mbps > bandMbps);
    assert.deepEqual(above, [], `${where}: sustained above the ${bandMbps.toFixed(1)} Mbit/s band\n${text}`);
  }
  const aboveInJson = sustainedRatesInJson(reportJson).filter((r) => r.bitsPerSecond > bandMbps * 1e6);
  assert.deepEqual(aboveInJson, [], "report.json: a sustained or plateau rate above the quota");
  for (const row of csv)
    for (const [header, value] of Object.entries(row))
      if (/^Sustained (median|min|max) \(Mbit\/s\)$/.test(header) && value !== "")
        assert.ok(number(value) <= bandMbps, `summary.csv ${row.Probe}: ${header} ${value}`);
  return { printed, reportJson, csv, markdown };
}

test(`one S3 connection capped above the quota: a GET inside the burst prints no sustained rate, a long one prints the quota (${scaled.label}, ${MEMORY_MB} MB)`, {
  skip,
  timeout: 900_000,
}, async () => {
  ensureBuilt();
  const withinQuota = (bitsPerSecond: number, where: string) =>
    assert.ok(
      Math.abs(bitsPerSecond - ceilingBitsPerSecond) <= 0.05 * ceilingBitsPerSecond,
      `${where}: sustained ${(bitsPerSecond / 1e6).toFixed(1)} Mbit/s, the quota ${(ceilingBitsPerSecond / 1e6).toFixed(1)} (payload)`,
    );

  // the short cell: ~3 s at the cap, well inside the 40 MB bucket
  const short = await outputsOf(await runCell("ceiling-short", 40, 8));
  const label = "s3-get 40 MiB conc 1 chunk 8 MiB";
  const progress = new RegExp(
    `${label} #1: ([\\d,]+) Mbit/s avg incl\\. burst; no sustained rate: ended inside the burst: ([\\d,]+) MB above the ${Math.round(ceilingBitsPerSecond / 1e6)} Mbit/s ceiling in ([\\d.]+) s`,
  ).exec(short.printed);
  assert.ok(progress, `the progress line says it ended inside the burst\n${short.printed}`);
  console.log(`short: ${progress[0]}`);
  assert.ok(number(progress[1] as string) > bandMbps, "the transfer ran above the quota (in its burst)");
  const text = flat(short.printed);
  assert.match(
    text,
    /S3 GET single stream[^:]*: no sustained rate at any size \(ended inside the burst: [\d,]+ MB above the quota in [\d.]+ s\): no transfer outlasted the burst \(a longer transfer, or more connections, reaches the sustained rate\)/,
    "the verdict says so, and what to change",
  );
  assert.match(
    text,
    /s3-get conc 1 ended inside the burst: [\d,]+ MB above the quota in [\d.]+ s/,
    "the console summary",
  );
  const [cell] = short.reportJson.cells;
  assert.equal(cell?.sustained, null, "report.json: no sustained rate");
  assert.match(cell?.sustainedNullReasons[0] ?? "", /^ended inside the burst: /);
  assert.equal(cell?.insideBurst.repetitions, 1);
  const excessBytes = cell?.insideBurst.excessBytes?.median ?? 0;
  assert.ok(
    excessBytes > 0 && excessBytes <= bucketPayloadBytes * 1.05,
    `${excessBytes} bytes above the quota, the bucket holds ${bucketPayloadBytes}`,
  );
  const [shortRow] = short.csv;
  assert.equal(shortRow?.["Sustained median (Mbit/s)"], "");
  assert.match(shortRow?.["Sustained missing because"] ?? "", /^ended inside the burst: /);
  assert.equal(shortRow?.["Repetitions ended inside the burst"], "1");
  assert.match(short.markdown, new RegExp(`\\| ${label} \\|[^\\n]*\\| – \\(ended in burst\\) \\|`));
  assert.match(flat(short.markdown), /no sustained rate at any size \(ended inside the burst: /);

  // the same cell, long enough: ~7 s of burst, then ~30 s held to the quota
  const long = await outputsOf(await runCell("ceiling-long", 384, 16));
  const longLabel = "s3-get 384 MiB conc 1 chunk 16 MiB";
  const longProgress = new RegExp(`${longLabel} #1: ([\\d,.]+) Mbit/s sustained \\([^)]*\\)`).exec(
    long.printed,
  );
  assert.ok(longProgress, `the progress line gives a sustained rate, confirmed\n${long.printed}`);
  console.log(`long: ${longProgress[0]}`);
  withinQuota(number(longProgress[1] as string) * 1e6, "progress");
  const verdict = /S3 GET single stream[^:]*: 2,048 MB gives ([\d,]+) Mbit\/s sustained \(/.exec(
    flat(long.printed),
  );
  assert.ok(verdict, `the verdict gives it\n${long.printed}`);
  withinQuota(number(verdict[1] as string) * 1e6, "verdict");
  assert.ok(sustainedFiguresMbps(long.printed).length >= 2, "the printed sustained rates were found");
  const [longCell] = long.reportJson.cells;
  assert.ok(longCell?.sustained, "report.json: a sustained rate");
  withinQuota(longCell.sustained.median, "report.json");
  assert.ok(
    Math.abs((longCell.ceiling?.bitsPerSecond ?? 0) - ceilingBitsPerSecond) < 1_000,
    `the ceiling in force: ${longCell.ceiling?.bitsPerSecond}`,
  );
  assert.equal(longCell.insideBurst.repetitions, 0);
  assert.ok(
    (longCell.burst?.median ?? 0) > bandMbps * 1e6,
    `the burst split off above the quota: ${longCell.burst?.median}`,
  );
  console.log(
    `long: sustained ${(longCell.sustained.median / 1e6).toFixed(1)} Mbit/s of ${(ceilingBitsPerSecond / 1e6).toFixed(1)}, burst ${((longCell.burst?.median ?? 0) / 1e6).toFixed(1)}`,
  );
  const [longRow] = long.csv;
  withinQuota(number(longRow?.["Sustained median (Mbit/s)"] ?? "0") * 1e6, "summary.csv");
  assert.equal(longRow?.["Sustained confirmed by the ceiling"], "true");
  const mdRow = new RegExp(`\\| ${longLabel} \\|[^|]*\\|[^|]*\\|[^|]*\\| ([\\d,]+) n=1 \\|`).exec(
    long.markdown,
  );
  assert.ok(mdRow, "report.md's summary row");
  withinQuota(number(mdRow[1] as string) * 1e6, "report.md");
});
