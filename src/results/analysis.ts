import type { Cell } from "../plan/cell.js";
import { targetKey, targetName } from "../plan/plan-schema.js";
import type { Architecture, PlatformFacts } from "../platforms/platform.js";
import type { RunManifest } from "./manifest.js";
import { type LambdaPrice, lambdaPrice, type PriceTable, priceTable } from "./price-table.js";
import { type RecordRates, recordRates } from "./record-rates.js";
import type { ResultRecord } from "./result-record.js";
import { describe, type Spread, slope } from "./statistics.js";

/** 1,769 MB of Lambda memory buys one vCPU (AWS documentation). */
export const megabytesPerVcpu = 1_769;
/** A cell is CPU-bound when its client used at least this share of the CPU it had. */
export const cpuBoundShare = 0.9;
/** The knee is the smallest memory reaching this share of the plateau. */
export const kneeShare = 0.95;

export interface CellStatistics {
  cellId: string;
  target: string;
  targetKey: string;
  platform: "local" | "aws";
  memoryMb: number;
  arch: Architecture;
  probe: string;
  probeKey: string;
  probeLabel: string;
  plannedRepetitions: number;
  /** Invocations recorded (successful or not). */
  recorded: number;
  /** Failed invocations, by error kind. */
  failures: Record<string, number>;
  /** Over successful measuring invocations; null when there is none. */
  average: Spread | null;
  burst: Spread | null;
  sustained: Spread | null;
  cpuCores: Spread | null;
  retransmits: Spread | null;
  bytes: Spread | null;
  /** Median whole-test rate as a share of the quota in force, percent; null when the quota is unknown. */
  quotaPercent: number | null;
  /** The environment's CPU share in cores: memory / 1,769, capped by the cores it can have. */
  cpuShareCores: number;
  /** Median client CPU use reached >= 90% of the CPU share: the number may be the client's limit, not the network's. */
  cpuBound: boolean | null;
  /** USD per GB (1e9 bytes) moved at the median rate: GB-seconds plus requests; null without a price. */
  costPerGigabyteUsd: number | null;
  cold: number;
}

export interface CurveAnalysis {
  targetKey: string;
  target: string;
  platform: "local" | "aws";
  arch: Architecture;
  probeKey: string;
  probeLabel: string;
  points: Array<{ memoryMb: number; medianBitsPerSecond: number }>;
  /** Highest median whole-test rate over the memory sizes. */
  plateauBitsPerSecond: number | null;
  /** Smallest memory reaching 95% of the plateau. */
  kneeMemoryMb: number | null;
  /** Least-squares slope on the rising part (start of the rise to the knee), bit/s per GB (1,024 MB) of memory; 0 when flat. */
  slopeBitsPerSecondPerGigabyte: number | null;
  /** Cheapest memory size (cost per GB moved) among those reaching 95% of the plateau. */
  recommendedMemoryMb: number | null;
  recommendedCostPerGigabyteUsd: number | null;
  /** Time to move `moveGigabytes` GB at the recommended size's median rate. */
  moveSeconds: number | null;
}

export interface RunAnalysis {
  runId: string;
  emulated: boolean;
  unshaped: boolean;
  moveGigabytes: number;
  plannedInvocations: number;
  recordedInvocations: number;
  failedInvocations: number;
  cells: CellStatistics[];
  curves: CurveAnalysis[];
  quotas: Record<string, number | null>;
  prices: { retrievedOn: string; source: string; byTarget: Record<string, LambdaPrice | null> };
}

/** Everything the report shows, computed from the manifest and the records only. Pure. */
export function analyzeRun(
  manifest: RunManifest,
  records: ResultRecord[],
  prices: PriceTable = priceTable,
): RunAnalysis {
  const measured = records.filter((r) => !r.warmup);
  const byCell = new Map<string, ResultRecord[]>();
  for (const record of measured) {
    const list = byCell.get(record.cellId) ?? [];
    list.push(record);
    byCell.set(record.cellId, list);
  }
  const facts = manifest.platforms;
  const byTargetPrice: Record<string, LambdaPrice | null> = {};
  const cells = manifest.cells.map((cell) => {
    const key = targetKey(cell.target);
    const price = lambdaPrice(cell.target.platform, targetName(cell.target), cell.arch, prices);
    byTargetPrice[`${key}/${cell.arch}`] = price;
    return cellStatistics(cell, byCell.get(cell.id) ?? [], facts[key], price);
  });
  const curves = buildCurves(cells, manifest.plan.moveGigabytes);
  const factList = Object.values(facts);
  const quotas: Record<string, number | null> = {};
  for (const target of manifest.plan.targets)
    quotas[targetKey(target)] = facts[targetKey(target)]?.quotaBitsPerSecond ?? null;
  return {
    runId: manifest.runId,
    emulated: factList.some((f) => f.emulated) || manifest.plan.targets.some((t) => t.platform === "local"),
    unshaped: factList.some((f) => f.unshaped),
    moveGigabytes: manifest.plan.moveGigabytes,
    plannedInvocations: manifest.cells.reduce((sum, cell) => sum + cell.repetitions, 0),
    recordedInvocations: measured.length,
    failedInvocations: measured.filter((r) => !r.ok).length,
    cells,
    curves,
    quotas,
    prices: { retrievedOn: prices.retrievedOn, source: prices.source, byTarget: byTargetPrice },
  };
}

export function cellStatistics(
  cell: Cell,
  records: ResultRecord[],
  facts: PlatformFacts | undefined,
  price: LambdaPrice | null,
): CellStatistics {
  const failures: Record<string, number> = {};
  for (const record of records) {
    if (!record.ok) {
      const kind = record.error?.kind ?? "unknown";
      failures[kind] = (failures[kind] ?? 0) + 1;
    }
  }
  const rates = records.map(recordRates).filter((r): r is RecordRates => r !== null);
  const pick = (f: (r: RecordRates) => number | null) =>
    describe(rates.map(f).filter((v): v is number => v !== null));
  const ok = records.filter((r) => r.ok && r.bitsPerSecond !== null);
  const average = pick((r) => r.averageBitsPerSecond);
  const cpuCores = pick((r) => r.cpuCores);
  const bytes = describe(ok.map((r) => r.bytes).filter((v): v is number => v !== null));
  const quota = facts?.quotaBitsPerSecond ?? null;
  const cpuShareCores = environmentCpuShare(cell.memoryMb, facts);
  return {
    cellId: cell.id,
    target: targetName(cell.target),
    targetKey: targetKey(cell.target),
    platform: cell.target.platform,
    memoryMb: cell.memoryMb,
    arch: cell.arch,
    probe: cell.probe.kind,
    probeKey: cell.probeKey,
    probeLabel: cell.probeLabel,
    plannedRepetitions: cell.repetitions,
    recorded: records.length,
    failures,
    average,
    burst: pick((r) => r.burstBitsPerSecond),
    sustained: pick((r) => r.sustainedBitsPerSecond),
    cpuCores,
    retransmits: describe(ok.map((r) => r.retransmits).filter((v): v is number => v !== null)),
    bytes,
    quotaPercent: average && quota ? (average.median / quota) * 100 : null,
    cpuShareCores,
    cpuBound: cpuCores ? cpuCores.median >= cpuBoundShare * cpuShareCores : null,
    costPerGigabyteUsd:
      average && bytes && price ? costPerGigabyte(cell.memoryMb, average.median, bytes.median, price) : null,
    cold: records.filter((r) => r.cold === true).length,
  };
}

/** memory / 1,769 vCPU, capped by the platform's core limit when it states one (`details.hostCores`, Lambda's 6 vCPUs). */
export function environmentCpuShare(memoryMb: number, facts: PlatformFacts | undefined): number {
  const share = memoryMb / megabytesPerVcpu;
  const hostCores = facts?.details.hostCores;
  const cap = typeof hostCores === "number" && hostCores > 0 ? hostCores : 6;
  return Math.min(share, cap);
}

/**
 * USD to move one GB (1e9 bytes) at `bitsPerSecond`: memory (GB) x seconds per GB x GB-second price,
 * plus one request per invocation of `bytesPerInvocation`.
 */
export function costPerGigabyte(
  memoryMb: number,
  bitsPerSecond: number,
  bytesPerInvocation: number,
  price: LambdaPrice,
): number {
  if (!(bitsPerSecond > 0) || !(bytesPerInvocation > 0)) return Number.NaN;
  const secondsPerGigabyte = 8e9 / bitsPerSecond;
  const invocationsPerGigabyte = 1e9 / bytesPerInvocation;
  return (
    (memoryMb / 1024) * secondsPerGigabyte * price.gigabyteSecondUsd +
    invocationsPerGigabyte * price.requestUsd
  );
}

function buildCurves(cells: CellStatistics[], moveGigabytes: number): CurveAnalysis[] {
  const groups = new Map<string, CellStatistics[]>();
  for (const cell of cells) {
    if (cell.probe === "info") continue;
    const key = `${cell.targetKey}|${cell.arch}|${cell.probeKey}`;
    groups.set(key, [...(groups.get(key) ?? []), cell]);
  }
  return [...groups.values()].map((group) => curveAnalysis(group, moveGigabytes));
}

export function curveAnalysis(group: CellStatistics[], moveGigabytes: number): CurveAnalysis {
  const first = group[0] as CellStatistics;
  const measured = group.filter((c) => c.average !== null).sort((a, b) => a.memoryMb - b.memoryMb);
  const points = measured.map((c) => ({
    memoryMb: c.memoryMb,
    medianBitsPerSecond: (c.average as Spread).median,
  }));
  const base = {
    targetKey: first.targetKey,
    target: first.target,
    platform: first.platform,
    arch: first.arch,
    probeKey: first.probeKey,
    probeLabel: first.probeLabel,
    points,
  };
  if (points.length === 0) {
    return {
      ...base,
      plateauBitsPerSecond: null,
      kneeMemoryMb: null,
      slopeBitsPerSecondPerGigabyte: null,
      recommendedMemoryMb: null,
      recommendedCostPerGigabyteUsd: null,
      moveSeconds: null,
    };
  }
  const plateau = Math.max(...points.map((p) => p.medianBitsPerSecond));
  const kneeIndex = points.findIndex((p) => p.medianBitsPerSecond >= kneeShare * plateau);
  const knee = points[kneeIndex] as (typeof points)[number];
  // the rise starts at the last point before the knee still within 5% of the smallest size's rate
  const startLevel = (points[0] as (typeof points)[number]).medianBitsPerSecond * 1.05;
  let riseStart = 0;
  for (let i = 0; i < kneeIndex; i += 1)
    if ((points[i] as (typeof points)[number]).medianBitsPerSecond <= startLevel) riseStart = i;
  const rising = points
    .slice(riseStart, kneeIndex + 1)
    .map((p) => ({ x: p.memoryMb / 1024, y: p.medianBitsPerSecond }));
  const risingSlope = kneeIndex === 0 ? 0 : slope(rising);
  const candidates = measured.filter((c) => (c.average as Spread).median >= kneeShare * plateau);
  const priced = candidates.filter(
    (c) => c.costPerGigabyteUsd !== null && Number.isFinite(c.costPerGigabyteUsd),
  );
  const recommended =
    priced.length > 0
      ? priced.reduce((best, c) =>
          (c.costPerGigabyteUsd as number) < (best.costPerGigabyteUsd as number) ? c : best,
        )
      : (candidates[0] as CellStatistics);
  const recommendedRate = (recommended.average as Spread).median;
  return {
    ...base,
    plateauBitsPerSecond: plateau,
    kneeMemoryMb: knee.memoryMb,
    slopeBitsPerSecondPerGigabyte: risingSlope,
    recommendedMemoryMb: recommended.memoryMb,
    recommendedCostPerGigabyteUsd: recommended.costPerGigabyteUsd,
    moveSeconds: recommendedRate > 0 ? (moveGigabytes * 8e9) / recommendedRate : null,
  };
}
