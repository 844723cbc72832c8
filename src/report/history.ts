import type { TopLevelSpec } from "vega-lite";
import { isEmulated } from "../plan/platforms.js";
import type { RunManifest } from "../results/manifest.js";
import type { ResultRecord } from "../results/result-record.js";
import { median } from "../results/statistics.js";
import type { ChartSpec } from "./charts/chart-spec.js";
import { historyRates } from "./history-rates.js";
import { textTable } from "./tables.js";
import { formatMbps } from "./units.js";

/**
 * `report --history`: one probe's sustained and burst rates per memory size, run after run
 * (typically the daily runs of a schedule), so a change of Lambda's bandwidth shows as a step
 * in a line. Each point is the median over that run's successful repetitions. Pure.
 */
export interface HistoryRun {
  manifest: RunManifest;
  records: ResultRecord[];
}

export type RateKind = "sustained" | "burst";

export interface HistoryPoint {
  runId: string;
  /** When the run started (manifest.createdAt). */
  time: string;
  memoryMb: number;
  kind: RateKind;
  /** Median over the run's successful repetitions, bits per second. */
  bitsPerSecond: number;
  n: number;
}

export interface HistorySeries {
  /** File-safe name: target and probe. */
  name: string;
  target: string;
  probeLabel: string;
  memorySizes: number[];
  runs: Array<{ runId: string; time: string }>;
  points: HistoryPoint[];
}

export function buildHistory(runs: HistoryRun[]): HistorySeries[] {
  const ordered = [...runs].sort((a, b) => (a.manifest.createdAt < b.manifest.createdAt ? -1 : 1));
  const series = new Map<string, HistorySeries>();
  for (const { manifest, records } of ordered) {
    const groups = new Map<string, ResultRecord[]>();
    for (const record of records) {
      if (record.warmup || !record.ok) continue;
      const key = `${record.platform}:${record.target}|${record.probeKey}|${record.arch}|${record.memoryMb}`;
      groups.set(key, [...(groups.get(key) ?? []), record]);
    }
    for (const group of groups.values()) {
      const first = group[0] as ResultRecord;
      const seriesKey = `${first.platform}:${first.target}|${first.probeKey}|${first.arch}`;
      const rates = group.map((record) => historyRates(manifest, record)).filter((r) => r !== null);
      let entry = series.get(seriesKey);
      for (const kind of ["sustained", "burst"] as const) {
        const values = rates
          .map((r) => (kind === "sustained" ? r.sustainedBitsPerSecond : r.burstBitsPerSecond))
          .filter((v): v is number => v !== null);
        if (values.length === 0) continue;
        if (!entry) {
          const label = `${first.probeLabel}${first.arch === "arm64" ? "" : ` ${first.arch}`}`;
          entry = {
            name: slug(`${first.target}-${label}`),
            target: `${first.target}${isEmulated(first.platform) ? " (lab, emulated)" : ""}`,
            probeLabel: label,
            memorySizes: [],
            runs: [],
            points: [],
          };
          series.set(seriesKey, entry);
        }
        entry.points.push({
          runId: manifest.runId,
          time: manifest.createdAt,
          memoryMb: first.memoryMb,
          kind,
          bitsPerSecond: median(values),
          n: values.length,
        });
        if (!entry.memorySizes.includes(first.memoryMb)) entry.memorySizes.push(first.memoryMb);
        if (!entry.runs.some((run) => run.runId === manifest.runId))
          entry.runs.push({ runId: manifest.runId, time: manifest.createdAt });
      }
    }
  }
  for (const entry of series.values()) entry.memorySizes.sort((a, b) => a - b);
  return [...series.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

function slug(text: string): string {
  return text
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase();
}

/** One table per probe: a row per run, a column per memory size, "sustained / burst" Mbit/s. */
export function renderHistoryText(series: HistorySeries[]): string {
  if (series.length === 0) return "no measuring records with interval samples in these runs\n";
  const lines: string[] = [];
  for (const entry of series) {
    lines.push(`${entry.target} — ${entry.probeLabel}: sustained / burst, Mbit/s (median per run)`);
    const header = [
      "run started",
      ...entry.memorySizes.map((m) => ({ header: `${m} MB`, align: "right" as const })),
    ];
    const rows = entry.runs.map((run) => [
      run.time.replace(/\.\d+Z$/, "Z"),
      ...entry.memorySizes.map((memoryMb) => {
        const at = (kind: RateKind) =>
          entry.points.find((p) => p.runId === run.runId && p.memoryMb === memoryMb && p.kind === kind);
        const sustained = at("sustained");
        const burst = at("burst");
        return sustained || burst
          ? `${formatMbps(sustained?.bitsPerSecond)} / ${formatMbps(burst?.bitsPerSecond)}`
          : "–";
      }),
    ]);
    lines.push(...textTable(header, rows, { rule: false }), "");
  }
  return `${lines.join("\n")}`;
}

/** Rate over time, a line per memory size, solid sustained and dashed burst. */
export function historyChart(entry: HistorySeries): ChartSpec {
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: {
      text: `${entry.target} — ${entry.probeLabel}`,
      subtitle: "median per run; solid: sustained, dashed: burst",
    },
    width: 640,
    height: 320,
    data: {
      values: entry.points.map((p) => ({
        time: p.time,
        megabitsPerSecond: p.bitsPerSecond / 1e6,
        memory: `${p.memoryMb} MB`,
        memoryMb: p.memoryMb,
        kind: p.kind,
        n: p.n,
        run: p.runId,
      })),
    },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "time", type: "temporal", title: "run started (UTC)" },
      y: { field: "megabitsPerSecond", type: "quantitative", title: "Mbit/s" },
      color: { field: "memory", type: "nominal", sort: { field: "memoryMb" }, title: "memory" },
      strokeDash: { field: "kind", type: "nominal", title: "rate", sort: ["sustained", "burst"] },
      detail: [{ field: "kind" }],
      tooltip: [
        { field: "run" },
        { field: "memory" },
        { field: "kind" },
        { field: "megabitsPerSecond", format: ",.0f" },
        { field: "n" },
      ],
    },
  };
  return { name: `history-${entry.name}`, title: `${entry.target} — ${entry.probeLabel} over time`, spec };
}
