import { requestSizeText } from "../probes/latency/latency-probe.js";
import type { LatencyMeasurement } from "../probes/latency/measurement.js";
import type { ConnectionMode } from "../probes/latency/options.js";
import type { RunAnalysis } from "../results/analysis.js";
import {
  publishedLatenciesFor,
  publishedLatencySource,
  warmKeptAliveTotal,
} from "../results/latency-baseline.js";
import type { LatencyCell, LatencyCurve } from "../results/latency-cells.js";
import { type Percentiles, percentiles } from "../results/latency-percentiles.js";
import { LATENCY_PHASES, type LatencyPhase, PHASE_LABELS, summarizeMode } from "../results/latency-phases.js";
import { markdownTable } from "./tables.js";
import { renderPivot, wrap } from "./text-layout.js";

/**
 * The latency probe's part of every output: a verdict line per request size and connection
 * mode ("64 KiB ranged GET, new connection: p50 41 ms at 128 MB, 12 ms from 1,024 MB up: more
 * memory stops helping at 1,024 MB"), the time to last byte by memory size, the phases, and the
 * published figures beside the cells that measured the same thing. Reads the analysis only.
 */

type LatencyAnalysis = RunAnalysis["latency"];

/** 0.42 ms, 4.8 ms, 41 ms, 1,204 ms. */
export function formatMs(seconds: number | null): string {
  if (seconds === null) return "–";
  const ms = seconds * 1000;
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms).toLocaleString("en-US")} ms`;
}

const memoryText = (mb: number) => `${mb.toLocaleString("en-US")} MB`;

export function modeText(mode: ConnectionMode): string {
  return mode === "new" ? "new connection" : "kept-alive connection";
}

export function requestText(bytes: number, ranged: boolean): string {
  return `${requestSizeText(bytes)} ${ranged ? "ranged GET" : "GET"}`;
}

/** One invocation's latency for the progress line: "kept-alive p50 4.1 ms, new p50 12 ms (time to last byte, n = 100, 100)". */
export function latencyProgressText(measurement: LatencyMeasurement): string {
  const modes = measurement.modes.flatMap((m) => summarizeMode([m]) ?? []);
  const parts = modes.map((m) => `${m.mode} p50 ${formatMs(m.phases.total?.p50Seconds ?? null)}`);
  const counts = modes.map((m) => m.phases.total?.n ?? 0).join(", ");
  return modes.length > 0 ? `${parts.join(", ")} (time to last byte, n = ${counts})` : "no request completed";
}

/** One sentence per curve: the time to last byte's p50 by memory size and where memory stops mattering. */
export function latencyVerdict(curve: LatencyCurve): string {
  const name = `${requestText(curve.requestBytes, curve.ranged)}, ${modeText(curve.mode)}`;
  const points = curve.points.filter((p) => p.p50Seconds !== null);
  const first = points[0];
  const last = points[points.length - 1];
  const cpuBound = curve.points.filter((p) => p.cpuBound === true).map((p) => p.memoryMb);
  const cpuNote = cpuBound.length > 0 ? `; CPU-bound at ${cpuBound.map(memoryText).join(", ")}` : "";
  if (!first || !last) {
    const only = curve.points[0];
    return `${name}: ${only ? `n = ${only.n}, too few requests for a p50 (max ${formatMs(only.maxSeconds)})` : "no request completed"}`;
  }
  if (points.length === 1)
    return `${name}: p50 ${formatMs(first.p50Seconds)}, p90 ${formatMs(first.p90Seconds)}, p99 ${first.p99Seconds === null ? `needs n >= 100 (n = ${first.n})` : formatMs(first.p99Seconds)} at ${memoryText(first.memoryMb)}${cpuNote}`;
  const knee = curve.kneeMemoryMb;
  const atKnee = points.find((p) => p.memoryMb === knee);
  if (knee === first.memoryMb)
    return `${name}: p50 ${formatMs(first.p50Seconds)} at ${memoryText(first.memoryMb)} and about the same up to ${memoryText(last.memoryMb)}: memory makes no difference here${cpuNote}`;
  if (knee === null || !atKnee) {
    const fastest = points.reduce((best, p) =>
      (p.p50Seconds as number) < (best.p50Seconds as number) ? p : best,
    );
    // the largest size slower than a smaller one by more than the knee allows: noise or a real rise, not a fall
    if (fastest === first)
      return `${name}: p50 ${formatMs(first.p50Seconds)} at ${memoryText(first.memoryMb)}, slower at larger sizes (${formatMs(last.p50Seconds)} at ${memoryText(last.memoryMb)}): more memory does not help here${cpuNote}`;
    if (fastest !== last)
      return `${name}: p50 ${formatMs(first.p50Seconds)} at ${memoryText(first.memoryMb)}, fastest ${formatMs(fastest.p50Seconds)} at ${memoryText(fastest.memoryMb)}, ${formatMs(last.p50Seconds)} at ${memoryText(last.memoryMb)}: no size from which more memory stops helping${cpuNote}`;
    return `${name}: p50 ${formatMs(first.p50Seconds)} at ${memoryText(first.memoryMb)}, ${formatMs(last.p50Seconds)} at ${memoryText(last.memoryMb)}: still falling at the largest size tried${cpuNote}`;
  }
  return `${name}: p50 ${formatMs(first.p50Seconds)} at ${memoryText(first.memoryMb)}, ${formatMs(atKnee.p50Seconds)} from ${memoryText(knee)} up: more memory stops helping at ${memoryText(knee)}${cpuNote}`;
}

function curvesByTarget(latency: LatencyAnalysis): Map<string, LatencyCurve[]> {
  const byTarget = new Map<string, LatencyCurve[]>();
  for (const curve of latency.curves) {
    const key = `${curve.target}${multiArch(latency) ? ` ${curve.arch}` : ""}`;
    byTarget.set(key, [...(byTarget.get(key) ?? []), curve]);
  }
  return byTarget;
}

function multiArch(latency: LatencyAnalysis): boolean {
  return new Set(latency.cells.map((c) => c.arch)).size > 1;
}

/** The verdict lines alone, prefixed with their target (the HTML page's first screen). */
export function latencyVerdicts(latency: LatencyAnalysis): string[] {
  return [...curvesByTarget(latency)].flatMap(([target, curves]) =>
    curves.map((curve) => `${target} ${latencyVerdict(curve)}`),
  );
}

/** What the console prints: the verdicts, then per curve the time to last byte by memory size (columns). */
export function renderLatencyText(latency: LatencyAnalysis, width: number): string[] {
  if (latency.curves.length === 0) return [];
  const lines = ["S3 GET latency (time to last byte, nearest-rank percentiles)"];
  for (const [target, curves] of curvesByTarget(latency)) {
    for (const curve of curves) lines.push(...wrap(`  ${target} ${latencyVerdict(curve)}`, width, "      "));
  }
  // one block per curve, memory sizes as columns: split into slices when they do not fit the width
  const curves = [...curvesByTarget(latency)].flatMap(([target, list]) =>
    list.map((curve) => ({ target, curve })),
  );
  for (const { target, curve } of curves) {
    const row = (label: string, pick: (p: (typeof curve.points)[number]) => string) => ({
      label,
      cells: curve.points.map(pick),
    });
    lines.push(
      "",
      ...renderPivot(
        curve.points.map((p) => memoryText(p.memoryMb)),
        [
          {
            heading: `${target} ${requestText(curve.requestBytes, curve.ranged)}, ${modeText(curve.mode)}`,
            rows: [
              row("p50", (p) => formatMs(p.p50Seconds)),
              row("p90", (p) => formatMs(p.p90Seconds)),
              row("p99", (p) => formatMs(p.p99Seconds)),
              row("max", (p) => formatMs(p.maxSeconds)),
              row("n", (p) => String(p.n)),
              row("CPU", (p) => (p.cpuBound === true ? "bound" : p.cpuBound === false ? "spare" : "–")),
            ],
          },
        ],
        width,
      ).slice(0, -1),
    );
  }
  lines.push(...roundTripLines(latency.cells, width), ...baselineLines(latency.cells, width));
  const unsupported = latency.cells.some((c) =>
    c.modes.some((m) => (m.phases.total?.unsupported.length ?? 0) > 0),
  );
  if (unsupported)
    lines.push("", ...wrap("– : a percentile n cannot support (p90 needs n >= 10, p99 n >= 100).", width));
  return lines;
}

/** The connects to the iperf3 server of every cell of one target, architecture and memory size, pooled. */
function roundTrips(cells: readonly LatencyCell[]): Array<{ name: string; connect: Percentiles }> {
  const byEnvironment = new Map<string, { name: string; seconds: number[] }>();
  for (const c of cells) {
    if (c.iperf3ConnectSeconds.length === 0) continue;
    const key = `${c.targetKey}|${c.arch}|${c.memoryMb}`;
    const entry = byEnvironment.get(key) ?? { name: `${c.target} ${memoryText(c.memoryMb)}`, seconds: [] };
    entry.seconds.push(...c.iperf3ConnectSeconds);
    byEnvironment.set(key, entry);
  }
  return [...byEnvironment.values()].map((e) => ({
    name: e.name,
    connect: percentiles(e.seconds) as Percentiles,
  }));
}

function roundTripText(p: Percentiles): string {
  return `p50 ${formatMs(p.p50Seconds)}, p90 ${formatMs(p.p90Seconds)}, max ${formatMs(p.maxSeconds)} (n = ${p.n})`;
}

/** The TCP connect time to the iperf3 server: the round trip the study ran with. */
function roundTripLines(cells: readonly LatencyCell[], width: number): string[] {
  const trips = roundTrips(cells);
  if (trips.length === 0) return [];
  const lines = ["", "TCP connect to the iperf3 server (the round trip)"];
  for (const t of trips) lines.push(...wrap(`  ${t.name}: ${roundTripText(t.connect)}`, width, "      "));
  return lines;
}

/** The published figures beside the cells that measured the same thing (warm kept-alive ranged GETs, same size, memory and VPC). */
function baselineLines(cells: readonly LatencyCell[], width: number): string[] {
  const rows = baselineRows(cells);
  if (rows.length === 0) return [];
  const lines = ["", `Beside published figures (${publishedLatencySource.source})`];
  for (const row of rows) {
    lines.push(
      ...wrap(
        `  ${memoryText(row.memoryMb)}: ours p50 ${formatMs(row.ours.p50Seconds)}, p90 ${formatMs(row.ours.p90Seconds)} (n = ${row.ours.n}); ${row.client} in ${row.region} p50 ${formatMs(row.published.p50Seconds)}, p90 ${formatMs(row.published.p90Seconds)} (n = ${row.published.n})`,
        width,
        "      ",
      ),
    );
  }
  lines.push(...wrap(`  How they measured: ${publishedLatencySource.method}`, width, "    "));
  return lines;
}

interface BaselineRow {
  memoryMb: number;
  ours: Percentiles;
  client: string;
  region: string;
  published: Percentiles;
}

function baselineRows(cells: readonly LatencyCell[]): BaselineRow[] {
  return cells.flatMap((cell) => {
    const ours = warmKeptAliveTotal(cell);
    if (!ours) return [];
    return publishedLatenciesFor(cell).map((p) => ({
      memoryMb: cell.memoryMb,
      ours,
      client: p.client,
      region: p.region,
      published: p.total,
    }));
  });
}

const TABLE_PHASES: LatencyPhase[] = ["lookup", "connect", "tls", "wait", "firstByte", "total"];

const right = (header: string) => ({ header, align: "right" }) as const;

/** report.md's section: the verdicts, every phase's p50 / p90 / p99 / max per cell and mode, the baseline. */
export function renderLatencyMarkdown(latency: LatencyAnalysis): string[] {
  if (latency.cells.length === 0) return [];
  const out = ["## S3 GET latency", ""];
  for (const line of latencyVerdicts(latency)) out.push(`- ${line}`);
  out.push(
    "",
    "Each request's phases on the monotonic clock, as curl's `-w` times: name look-up, TCP connect, TLS handshake, request sent, first byte, last byte; every repetition's requests pooled. Percentiles are nearest rank (a time that was measured); one n cannot support is shown as – (p50 needs n >= 2, p90 n >= 10, p99 n >= 100). CPU: the process's CPU seconds per wall second over the requests, against the environment's share (CPU-bound at 90% of it).",
    "",
    ...markdownTable(
      [
        "Target",
        right("Memory"),
        "Request",
        "Connection",
        right("n"),
        ...TABLE_PHASES.map((p) => right(`${PHASE_LABELS[p]} p50`)),
        right("last byte p90"),
        right("p99"),
        right("max"),
        "CPU (cores of share)",
      ],
      latency.cells.flatMap((cell) =>
        cell.modes.map((mode) => {
          const total = mode.phases.total;
          const cpu = `${mode.cpuCores?.toFixed(3) ?? "–"} of ${cell.cpuShare.cores.toFixed(3)}${mode.cpuBound ? " (CPU-bound)" : ""}`;
          return [
            cell.target,
            `${cell.memoryMb} MB`,
            requestText(cell.requestBytes, cell.ranged),
            mode.mode,
            String(total?.n ?? 0),
            ...TABLE_PHASES.map((p) => formatMs(mode.phases[p]?.p50Seconds ?? null)),
            formatMs(total?.p90Seconds ?? null),
            formatMs(total?.p99Seconds ?? null),
            formatMs(total?.maxSeconds ?? null),
            cpu,
          ];
        }),
      ),
    ),
  );
  const trips = roundTrips(latency.cells);
  if (trips.length > 0) {
    out.push("", "TCP connect to the iperf3 server (the round trip the study ran with):", "");
    for (const t of trips) out.push(`- ${t.name}: ${roundTripText(t.connect)}`);
  }
  const rows = baselineRows(latency.cells);
  if (rows.length > 0) {
    out.push(
      "",
      `Beside published figures: ${publishedLatencySource.source}. ${publishedLatencySource.method}`,
      "",
      ...markdownTable(
        [
          right("Memory"),
          right("Ours p50"),
          right("Ours p90"),
          right("n"),
          "Published",
          "Region",
          right("p50"),
          right("p90"),
          right("n"),
        ],
        rows.map((r) => [
          `${r.memoryMb} MB`,
          formatMs(r.ours.p50Seconds),
          formatMs(r.ours.p90Seconds),
          String(r.ours.n),
          r.client,
          r.region,
          formatMs(r.published.p50Seconds),
          formatMs(r.published.p90Seconds),
          String(r.published.n),
        ]),
      ),
    );
  }
  return out;
}

/** latency.csv: one row per cell and connection mode, every phase's percentiles in seconds; null when the run has none. */
export function latencyCsvRows(
  latency: LatencyAnalysis,
): Array<Array<string | number | boolean | null>> | null {
  if (latency.cells.length === 0) return null;
  const header = [
    "Target",
    "Arch",
    "Memory (MB)",
    "Request (bytes)",
    "Ranged",
    "Connection",
    "Requests",
    "Failed requests",
    ...LATENCY_PHASES.flatMap((p) => ["p50", "p90", "p99", "max"].map((q) => `${p} ${q} (s)`)),
    "CPU (cores)",
    "CPU share (cores)",
    "CPU-bound",
    "iperf3 connect p50 (s)",
    "Cell id",
  ];
  const rows = latency.cells.flatMap((cell) =>
    cell.modes.map((mode) => [
      cell.target,
      cell.arch,
      cell.memoryMb,
      cell.requestBytes,
      cell.ranged,
      mode.mode,
      mode.requests,
      mode.failedRequests,
      ...LATENCY_PHASES.flatMap((p) => {
        const q = mode.phases[p];
        return [q?.p50Seconds ?? null, q?.p90Seconds ?? null, q?.p99Seconds ?? null, q?.maxSeconds ?? null];
      }),
      mode.cpuCores,
      cell.cpuShare.cores,
      mode.cpuBound,
      cell.iperf3Connect?.p50Seconds ?? null,
      cell.cellId,
    ]),
  );
  return [header, ...rows];
}
