import type { Architecture } from "../plan/architecture.js";
import type { Cell } from "../plan/cell.js";
import { targetKey, targetName } from "../plan/plan-schema.js";
import { type Bottleneck, bottleneckInput, nameBottleneck } from "./bottleneck.js";
import { type BucketCell, bucketCells } from "./bucket-cells.js";
import { environmentCpuShare } from "./cpu-share.js";
import type { RunManifest } from "./manifest.js";
import type { PlatformFacts } from "./platform-facts.js";
import { type LambdaPrice, lambdaPrice, type PriceTable, priceTable } from "./price-table.js";
import { type RecordRates, recordRates } from "./record-rates.js";
import type { ResultRecord } from "./result-record.js";
import { describe, type Spread, slope } from "./statistics.js";
import { type StreamsSweep, streamsSweeps } from "./streams-sweeps.js";

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
  /**
   * Over successful measuring invocations; null when there is none. Rates in bit/s.
   * effective: whole transfer (bytes / measured seconds; iperf3 upload = sum_sent, as in the seed).
   */
  effective: Spread | null;
  /** Rate, length and bytes of the burst, over the repetitions where one was detected. */
  burst: Spread | null;
  burstSeconds: Spread | null;
  burstBytes: Spread | null;
  /** Repetitions with a burst detected, with none, and undetermined (too short or no samples). */
  burstFound: { detected: number; none: number; undetermined: number };
  /** Median of the interval rates after the burst: what every headline uses. */
  sustained: Spread | null;
  /** Why repetitions have no sustained rate (distinct reasons); empty when all have one. */
  sustainedNullReasons: string[];
  /** iperf3 end.sum_sent and end.sum_received rates (schemaVersion-2 records); null when absent. */
  sent: Spread | null;
  received: Spread | null;
  /** Seconds per object: the probe's measured transfer, and (s3-get) the whole download as the seed timed it. */
  transferSeconds: Spread | null;
  wholeSeconds: Spread | null;
  cpuCores: Spread | null;
  retransmits: Spread | null;
  bytes: Spread | null;
  /** Median sustained rate as a share of the quota in force, percent; null when either is unknown. */
  quotaPercent: number | null;
  /** The environment's CPU share in cores (profile's mbPerVcpu in the lab, 1,769 MB on AWS, capped by cores). */
  cpuShareCores: number;
  cpuShareBasis: string;
  /** Median client CPU use reached >= 90% of the CPU share: the number may be the client's limit, not the network's. */
  cpuBound: boolean | null;
  /** USD per GB (1e9 bytes) moved at the median sustained rate: GB-seconds plus requests; null without a price or a sustained rate. */
  costPerGigabyteUsd: number | null;
  cold: number;
  /** What limited the sustained rate (quota, flow, cpu, server or undetermined), with its evidence. */
  bottleneck: Bottleneck;
}

export interface CurveAnalysis {
  targetKey: string;
  target: string;
  platform: "local" | "aws";
  arch: Architecture;
  probeKey: string;
  probeLabel: string;
  /** The rate every headline of the curve uses. */
  rateBasis: "sustained";
  /** Median sustained rate per memory size (sizes without one are in `missing`). */
  points: Array<{ memoryMb: number; medianBitsPerSecond: number }>;
  /** Memory sizes with measurements but no sustained rate, and why. */
  missing: Array<{ memoryMb: number; reason: string }>;
  /** Highest median sustained rate over the memory sizes. */
  plateauBitsPerSecond: number | null;
  /** Smallest memory reaching 95% of the plateau. */
  kneeMemoryMb: number | null;
  /** Least-squares slope on the rising part (start of the rise to the knee), bit/s per GB (1,024 MB) of memory; 0 when flat. */
  slopeBitsPerSecondPerGigabyte: number | null;
  /** Cheapest memory size (cost per GB moved) among those reaching 95% of the plateau. */
  recommendedMemoryMb: number | null;
  recommendedCostPerGigabyteUsd: number | null;
  /** The recommended size's median effective (whole-transfer) rate, for context. */
  recommendedEffectiveBitsPerSecond: number | null;
  /** Time to move `moveGigabytes` GB at the recommended size's median sustained rate. */
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
  /** The bucket probe's fitted models, one per bucket cell (empty without bucket cells). */
  buckets: BucketCell[];
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
  const sweeps = streamsSweeps(measured);
  const cells = manifest.cells.map((cell) => {
    const key = targetKey(cell.target);
    const price = lambdaPrice(cell.target.platform, targetName(cell.target), cell.arch, prices);
    byTargetPrice[`${key}/${cell.arch}`] = price;
    return cellStatistics(cell, byCell.get(cell.id) ?? [], facts[key], price, sweeps);
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
    buckets: bucketCells(measured),
    prices: { retrievedOn: prices.retrievedOn, source: prices.source, byTarget: byTargetPrice },
  };
}

export function cellStatistics(
  cell: Cell,
  records: ResultRecord[],
  facts: PlatformFacts | undefined,
  price: LambdaPrice | null,
  /** The run's streams sweeps: a per-flow cap fitted there can explain this cell's rate. */
  sweeps: readonly StreamsSweep[] = [],
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
  const effective = pick((r) => r.effectiveBitsPerSecond);
  const sustained = pick((r) => r.sustainedBitsPerSecond);
  const cpuCores = pick((r) => r.cpuCores);
  const bytes = describe(ok.map((r) => r.bytes).filter((v): v is number => v !== null));
  const quota = facts?.quotaBitsPerSecond ?? null;
  const cpuShare = environmentCpuShare(cell.memoryMb, facts);
  const count = (found: RecordRates["burstFound"]) => rates.filter((r) => r.burstFound === found).length;
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
    effective,
    burst: pick((r) => r.burst?.bitsPerSecond ?? null),
    burstSeconds: pick((r) => r.burst?.seconds ?? null),
    burstBytes: pick((r) => r.burst?.bytes ?? null),
    burstFound: { detected: count("detected"), none: count("none"), undetermined: count("undetermined") },
    sustained,
    sustainedNullReasons: [
      ...new Set(rates.map((r) => r.sustainedNullReason).filter((v): v is string => v !== null)),
    ],
    sent: pick((r) => r.sentBitsPerSecond),
    received: pick((r) => r.receivedBitsPerSecond),
    transferSeconds: pick((r) => r.transferSeconds),
    wholeSeconds: pick((r) => r.wholeSeconds),
    cpuCores,
    retransmits: describe(ok.map((r) => r.retransmits).filter((v): v is number => v !== null)),
    bytes,
    // the bandwidth quota covers functions outside a VPC only: no share of it for VPC cells
    quotaPercent: sustained && quota && !cell.vpc ? (sustained.median / quota) * 100 : null,
    cpuShareCores: cpuShare.cores,
    cpuShareBasis: cpuShare.basis,
    cpuBound: cpuCores ? cpuCores.median >= cpuBoundShare * cpuShare.cores : null,
    costPerGigabyteUsd:
      sustained && bytes && price
        ? costPerGigabyte(cell.memoryMb, sustained.median, bytes.median, price)
        : null,
    cold: records.filter((r) => r.cold === true).length,
    bottleneck: nameBottleneck(
      bottleneckInput(cell, records, facts, sweeps, {
        sustainedBitsPerSecond: sustained?.median ?? null,
        cpuUsedCores: cpuCores?.median ?? null,
        cpuShareCores: cpuShare.cores,
      }),
    ),
  };
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
  const bySize = [...group].sort((a, b) => a.memoryMb - b.memoryMb);
  // headlines use the sustained rate only; a size without one is listed, never filled with the average
  const measured = bySize.filter((c) => c.sustained !== null);
  const missing = bySize
    .filter((c) => c.sustained === null && c.effective !== null)
    .map((c) => ({ memoryMb: c.memoryMb, reason: c.sustainedNullReasons.join("; ") || "no sustained rate" }));
  const rate = (c: CellStatistics) => (c.sustained as Spread).median;
  const points = measured.map((c) => ({ memoryMb: c.memoryMb, medianBitsPerSecond: rate(c) }));
  const base = {
    targetKey: first.targetKey,
    target: first.target,
    platform: first.platform,
    arch: first.arch,
    probeKey: first.probeKey,
    probeLabel: first.probeLabel,
    rateBasis: "sustained" as const,
    points,
    missing,
  };
  if (points.length === 0) {
    return {
      ...base,
      plateauBitsPerSecond: null,
      kneeMemoryMb: null,
      slopeBitsPerSecondPerGigabyte: null,
      recommendedMemoryMb: null,
      recommendedCostPerGigabyteUsd: null,
      recommendedEffectiveBitsPerSecond: null,
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
  const candidates = measured.filter((c) => rate(c) >= kneeShare * plateau);
  const priced = candidates.filter(
    (c) => c.costPerGigabyteUsd !== null && Number.isFinite(c.costPerGigabyteUsd),
  );
  const recommended =
    priced.length > 0
      ? priced.reduce((best, c) =>
          (c.costPerGigabyteUsd as number) < (best.costPerGigabyteUsd as number) ? c : best,
        )
      : (candidates[0] as CellStatistics);
  const recommendedRate = rate(recommended);
  return {
    ...base,
    plateauBitsPerSecond: plateau,
    kneeMemoryMb: knee.memoryMb,
    slopeBitsPerSecondPerGigabyte: risingSlope,
    recommendedMemoryMb: recommended.memoryMb,
    recommendedCostPerGigabyteUsd: recommended.costPerGigabyteUsd,
    recommendedEffectiveBitsPerSecond: recommended.effective?.median ?? null,
    moveSeconds: recommendedRate > 0 ? (moveGigabytes * 8e9) / recommendedRate : null,
  };
}
