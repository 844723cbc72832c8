import {
  analyzeRun,
  type CellStatistics,
  type CurveAnalysis,
  type RunAnalysis,
} from "../results/analysis.js";
import { analyzeFleets, type FleetPoint, sustainedRate } from "../results/fleet-analysis.js";
import type { RunManifest } from "../results/manifest.js";
import type { PriceTable } from "../results/price-table.js";
import { intervalSeries, recordRates } from "../results/record-rates.js";
import type { ResultRecord } from "../results/result-record.js";

/** A per-interval series of one representative invocation (the one closest to its cell's median). */
export interface SeriesPick {
  targetKey: string;
  target: string;
  probeLabel: string;
  memoryMb: number;
  repetition: number;
  points: Array<{ startSeconds: number; bitsPerSecond: number }>;
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
    platform: "local" | "aws";
    quotaBitsPerSecond: number | null;
    details: Record<string, unknown>;
  }>;
  analysis: RunAnalysis;
  series: SeriesPick[];
  cpuPoints: CpuPoint[];
  /** Environments at once: per environment and aggregate against N (empty without fleets). */
  fleets: FleetPoint[];
}

export function buildReportModel(
  manifest: RunManifest,
  records: ResultRecord[],
  prices?: PriceTable,
): ReportModel {
  const analysis = analyzeRun(manifest, records, prices);
  const label = analysis.emulated ? (analysis.unshaped ? "emulated, unshaped" : "emulated") : null;
  const targets = manifest.plan.targets.map((target) => {
    const name = target.platform === "local" ? target.profile : target.region;
    const key = `${target.platform}:${name}`;
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
    fleets: analyzeFleets(records, sustainedRate),
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
        !cell.average
      )
        continue;
      const median = cell.average.median;
      const candidates = records.filter(
        (r) => r.cellId === cell.cellId && !r.warmup && r.ok && r.samples && r.bitsPerSecond !== null,
      );
      const best = candidates.reduce<ResultRecord | null>(
        (a, r) =>
          a === null ||
          Math.abs((r.bitsPerSecond as number) - median) < Math.abs((a.bitsPerSecond as number) - median)
            ? r
            : a,
        null,
      );
      if (!best) continue;
      picks.push({
        targetKey: cell.targetKey,
        target: cell.target,
        probeLabel: cell.probeLabel,
        memoryMb: cell.memoryMb,
        repetition: best.repetition,
        points: intervalSeries(best.samples),
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
    const rates = recordRates(record);
    if (!cell || !rates || rates.cpuCores === null) continue;
    points.push({
      targetKey: cell.targetKey,
      target: cell.target,
      probeLabel: cell.probeLabel,
      memoryMb: cell.memoryMb,
      bitsPerSecond: rates.averageBitsPerSecond,
      cpuCores: rates.cpuCores,
      cpuShareCores: cell.cpuShareCores,
    });
  }
  return points;
}
