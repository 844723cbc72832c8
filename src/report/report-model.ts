import { type PlatformName, targetKey, targetName } from "../plan/platforms.js";
import {
  analyzeRun,
  type CellStatistics,
  type CurveAnalysis,
  type RunAnalysis,
} from "../results/analysis.js";
import {
  type Baseline,
  type BaselinePoint,
  type BaselineSeries,
  baselinePoints,
  loadBaseline,
  matchBaselineSeries,
  methodDifferences,
} from "../results/baseline.js";
import { ceilingOfRecord } from "../results/ceiling.js";
import { analyzeFleets, type FleetPoint, sustainedRate } from "../results/fleet-analysis.js";
import type { RunManifest } from "../results/manifest.js";
import type { PriceTable } from "../results/price-table.js";
import { type PublishedSeriesBeside, publishedSeriesBeside } from "../results/published-series.js";
import { intervalSeries, type RecordRates, recordRates } from "../results/record-rates.js";
import type { ResultRecord } from "../results/result-record.js";
import { type ProbeNames, runProbeNames } from "./probe-names.js";

/** A per-interval series of one representative invocation (the one closest to its cell's median). */
export interface SeriesPick {
  targetKey: string;
  target: string;
  probeLabel: string;
  memoryMb: number;
  repetition: number;
  points: Array<{ startSeconds: number; bitsPerSecond: number }>;
  /** The burst window detected in this invocation, seconds from the start; null when none. */
  burstSeconds: number | null;
}

/** A published baseline series matched to one of this run's curves (same probe, region or quota). */
export interface BaselineOverlay {
  targetKey: string;
  arch: string;
  probeKey: string;
  series: BaselineSeries;
  /** Plottable points (stated, approximate or derived from seconds per object). */
  points: BaselinePoint[];
  /** How this curve's probe ran differently from the study's (empty: the same method, a percentage may be given). */
  methodDifferences: string[];
}

export interface CpuPoint {
  targetKey: string;
  target: string;
  probeLabel: string;
  memoryMb: number;
  bitsPerSecond: number;
  cpuCores: number;
  cpuShareCores: number;
}

/** Everything any report format shows, built from the manifest and records alone. Pure. */
export interface ReportModel {
  title: string;
  runId: string;
  createdAt: string;
  toolVersion: string;
  completed: boolean;
  /** "emulated", "emulated, unshaped" or null for real cloud results: shown on every chart and table. */
  label: string | null;
  targets: Array<{
    key: string;
    name: string;
    platform: PlatformName;
    quotaBitsPerSecond: number | null;
    details: Record<string, unknown>;
  }>;
  analysis: RunAnalysis;
  series: SeriesPick[];
  cpuPoints: CpuPoint[];
  /** The published reference dataset shown beside this run; null when none was asked for. */
  baseline: {
    name: string;
    title: string;
    source: string;
    studyPeriod: { from: string; to: string };
    overlays: BaselineOverlay[];
  } | null;
  /** Environments at once: per environment and aggregate against N (empty without fleets). */
  fleets: FleetPoint[];
  /** Published Lambda iperf3 series beside the cells that measured the same thing (empty when none did). */
  publishedSeries: PublishedSeriesBeside[];
  /** Short names and family of each probe variant, by probeKey (see probe-names.ts). */
  probeNames: Record<string, ProbeNames>;
  /** What this run's records lack because an earlier release wrote them (empty for current runs). */
  notices: string[];
}

/** The reports compare with the published study unless told otherwise. */
export const defaultBaselineName = "seed-2026";

export function buildReportModel(
  manifest: RunManifest,
  records: ResultRecord[],
  prices?: PriceTable,
  baselineName: string | null = defaultBaselineName,
): ReportModel {
  const analysis = analyzeRun(manifest, records, prices);
  const label = analysis.emulated ? (analysis.unshaped ? "emulated, unshaped" : "emulated") : null;
  const targets = manifest.plan.targets.map((target) => {
    const name = targetName(target);
    const key = targetKey(target);
    const facts = manifest.platforms[key];
    return {
      key,
      name,
      platform: target.platform,
      quotaBitsPerSecond: facts?.quotaBitsPerSecond ?? null,
      details: facts?.details ?? {},
    };
  });
  return {
    title: `lambda-netbench run ${manifest.runId}`,
    runId: manifest.runId,
    createdAt: manifest.createdAt,
    toolVersion: manifest.toolVersion,
    completed: manifest.completedAt !== null,
    label,
    targets,
    analysis,
    series: pickSeries(analysis.cells, analysis.curves, records),
    cpuPoints: cpuPoints(analysis.cells, records),
    fleets: analyzeFleets(
      records,
      sustainedRate((record) => ceilingOfRecord(manifest, record)),
    ),
    probeNames: runProbeNames(manifest.cells),
    notices: olderSchemaNotices(records),
    publishedSeries: publishedSeriesBeside(manifest.cells, records),
    baseline: baselineName === null ? null : baselineOverlays(loadBaseline(baselineName), manifest, analysis),
  };
}

function baselineOverlays(
  baseline: Baseline,
  manifest: RunManifest,
  analysis: RunAnalysis,
): NonNullable<ReportModel["baseline"]> {
  const overlays: BaselineOverlay[] = [];
  for (const curve of analysis.curves) {
    const cell = manifest.cells.find(
      (c) => c.probeKey === curve.probeKey && `${c.target.platform}:${curve.target}` === curve.targetKey,
    );
    // the published study measured functions outside a VPC: no baseline beside a VPC curve
    if (!cell || cell.vpc) continue;
    const matched = matchBaselineSeries(baseline, {
      platform: curve.platform,
      target: curve.target,
      quotaBitsPerSecond: analysis.quotas[curve.targetKey] ?? null,
      probe: cell.probe.kind,
      parameters: cell.probe as unknown as Record<string, unknown>,
    });
    for (const series of matched)
      overlays.push({
        targetKey: curve.targetKey,
        arch: curve.arch,
        probeKey: curve.probeKey,
        series,
        points: baselinePoints(series),
        methodDifferences: methodDifferences(series, cell.probe as unknown as Record<string, unknown>),
      });
  }
  return {
    name: baseline.name,
    title: baseline.title,
    source: baseline.source,
    studyPeriod: baseline.studyPeriod,
    overlays,
  };
}

/** For the first probe of each target (the plan's headline), one representative series per memory size. */
function pickSeries(cells: CellStatistics[], curves: CurveAnalysis[], records: ResultRecord[]): SeriesPick[] {
  const picks: SeriesPick[] = [];
  const seenTargets = new Set<string>();
  for (const curve of curves) {
    if (seenTargets.has(curve.targetKey) || curve.points.length === 0) continue;
    seenTargets.add(curve.targetKey);
    for (const cell of cells) {
      if (
        cell.targetKey !== curve.targetKey ||
        cell.probeKey !== curve.probeKey ||
        cell.arch !== curve.arch ||
        !cell.effective
      )
        continue;
      // the invocation closest to the cell's median sustained rate (effective when there is none)
      const headline = (rates: RecordRates) =>
        cell.sustained ? rates.sustainedBitsPerSecond : rates.effectiveBitsPerSecond;
      const median = (cell.sustained ?? cell.effective).median;
      let best: { record: ResultRecord; rates: RecordRates; distance: number } | null = null;
      for (const record of records) {
        if (record.cellId !== cell.cellId || record.warmup || !record.samples) continue;
        const rates = recordRates(record, cell.ceiling?.bitsPerSecond ?? null);
        const value = rates ? headline(rates) : null;
        if (!rates || value === null) continue;
        const distance = Math.abs(value - median);
        if (best === null || distance < best.distance) best = { record, rates, distance };
      }
      if (!best) continue;
      picks.push({
        targetKey: cell.targetKey,
        target: cell.target,
        probeLabel: cell.probeLabel,
        memoryMb: cell.memoryMb,
        repetition: best.record.repetition,
        points: intervalSeries(best.record.samples),
        burstSeconds: best.rates.burst?.seconds ?? null,
      });
    }
  }
  return picks;
}

function cpuPoints(cells: CellStatistics[], records: ResultRecord[]): CpuPoint[] {
  const byId = new Map(cells.map((c) => [c.cellId, c]));
  const points: CpuPoint[] = [];
  for (const record of records) {
    if (record.warmup) continue;
    const cell = byId.get(record.cellId);
    const rates = recordRates(record, cell?.ceiling?.bitsPerSecond ?? null);
    if (!cell || !rates || rates.cpuCores === null) continue;
    points.push({
      targetKey: cell.targetKey,
      target: cell.target,
      probeLabel: cell.probeLabel,
      memoryMb: cell.memoryMb,
      bitsPerSecond: rates.effectiveBitsPerSecond,
      cpuCores: rates.cpuCores,
      cpuShareCores: cell.cpuShareCores,
    });
  }
  return points;
}

/**
 * What older run directories lack, by the results schema that added it: a run written by an
 * earlier release still opens, and the report says which figures it cannot show. A release that
 * adds a field to the records adds its line here.
 */
export const recordFieldsSince: Array<{ schemaVersion: number; missing: string }> = [
  {
    schemaVersion: 2,
    missing:
      "no iperf3 sent/received sides and no whole-download seconds per object (those columns read –), and interval timing is nominal",
  },
];

/** One line per older results schema found in the run, naming what its records lack. */
export function olderSchemaNotices(records: ReadonlyArray<{ schemaVersion: number }>): string[] {
  const counts = new Map<number, number>();
  for (const record of records) counts.set(record.schemaVersion, (counts.get(record.schemaVersion) ?? 0) + 1);
  const notices: string[] = [];
  for (const [version, count] of [...counts].sort((a, b) => a[0] - b[0])) {
    const missing = recordFieldsSince.filter((f) => f.schemaVersion > version).map((f) => f.missing);
    if (missing.length > 0)
      notices.push(
        `${count} record${count === 1 ? "" : "s"} written by an earlier release (results schema ${version}): ${missing.join("; ")}.`,
      );
  }
  return notices;
}
