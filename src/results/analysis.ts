import type { Architecture } from "../plan/architecture.js";
import { type Cell, plannedInvocations } from "../plan/cell.js";
import { targetKey, targetName } from "../plan/plan-schema.js";
import type { PlatformName } from "../plan/platforms.js";
import { movesData } from "../probes/registry.js";
import { type Bottleneck, bottleneckInput, nameBottleneck } from "./bottleneck.js";
import { type BucketCell, bucketCells } from "./bucket-cells.js";
import { type CellBurst, cellBurst } from "./burst-figures.js";
import { bucketCeilingOfRecord, type Ceiling, ceilingInForce, ceilingOfRecord } from "./ceiling.js";
import { cpuBoundShare, environmentCpuShare } from "./cpu-share.js";
import { type LatencyCell, type LatencyCurve, latencyCells, latencyCurves } from "./latency-cells.js";
import type { RunManifest } from "./manifest.js";
import { intervalMinimumRepetitions, medianDifferenceInterval } from "./median-interval.js";
import type { PlatformFacts } from "./platform-facts.js";
import { type LambdaPrice, lambdaPrice, type PriceTable, priceTable } from "./price-table.js";
import { type RecordRates, recordRates } from "./record-rates.js";
import type { ResultRecord } from "./result-record.js";
import { describe, type Spread, slope } from "./statistics.js";
import { type StreamsSweep, streamsSweeps } from "./streams-sweeps.js";

/**
 * The smallest difference of medians that counts: a size is below the plateau only when the whole
 * interval on its difference lies more than this share under the plateau's median. The lab's
 * shaper holds payload within ~2% and one AWS stream reads 568-618 on a 625 quota (seed study).
 */
export const minimumEffectShare = 0.05;

export interface CellStatistics {
  cellId: string;
  target: string;
  targetKey: string;
  platform: PlatformName;
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
  /**
   * Peak, length at the peak and bytes above the sustained rate of the burst, over the
   * repetitions where one was detected; `burstBounds` says which are bounds (burst-figures.ts).
   */
  burst: Spread | null;
  burstSeconds: Spread | null;
  burstBytes: Spread | null;
  burstBounds: CellBurst["burstBounds"];
  /** Repetitions with a burst detected, with none, and undetermined (too short or no samples). */
  burstFound: { detected: number; none: number; undetermined: number };
  /** Bytes over measured time after the burst, per repetition: what every headline uses. */
  sustained: Spread | null;
  /**
   * Per repetition, the median of its interval rates after the burst: a diagnostic beside
   * `sustained` (on a short parallel transfer it overstates: it ignores the slower intervals).
   */
  sustainedIntervalMedian: Spread | null;
  /** Each repetition's sustained rate, ascending: what intervals on the medians resample. */
  sustainedValues: number[];
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
  /** Median sustained rate as a share of the ceiling in force, percent; null when either is unknown. */
  quotaPercent: number | null;
  /**
   * The limit in force (payload bit/s, summed over both directions of a bidirectional cell):
   * the one denominator of every percentage of the quota; null when none is known, and then the
   * sustained rate is unconfirmed (nothing says it is not a long burst).
   */
  ceiling: Ceiling | null;
  /** Repetitions that ended inside their burst (never fell to the ceiling), with their bytes above it. */
  insideBurst: { repetitions: number; excessBytes: Spread | null; seconds: Spread | null };
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

/**
 * Where one memory size stands against the plateau (the size with the highest median sustained
 * rate among those with n >= 3): "plateau" (that size), "reaches" (the evidence does not put it
 * below), "below" (the 95% interval on its median's difference from the plateau's lies wholly more
 * than `minimumEffectShare` under the plateau), "untold" (fewer than 3 repetitions here or at the
 * plateau: no interval can be had).
 */
export type SizeStanding = "plateau" | "reaches" | "below" | "untold";

export interface CurvePoint {
  memoryMb: number;
  medianBitsPerSecond: number;
  /** Repetitions behind the median. */
  n: number;
  standing: SizeStanding;
  /** The interval on (this size's median - the plateau's), bit/s; null for the plateau itself and untold sizes. */
  interval: { lowBitsPerSecond: number; highBitsPerSecond: number } | null;
  cpuBound: boolean | null;
}

export interface CurveAnalysis {
  targetKey: string;
  target: string;
  platform: PlatformName;
  arch: Architecture;
  probeKey: string;
  probeLabel: string;
  /** The rate every headline of the curve uses. */
  rateBasis: "sustained";
  /** Median sustained rate per memory size and its standing (sizes without one are in `missing`). */
  points: CurvePoint[];
  /** Memory sizes with measurements but no sustained rate, and why. */
  missing: Array<{ memoryMb: number; reason: string }>;
  /** The highest median sustained rate among the sizes with n >= 3 (among all when none has), and where. */
  plateauBitsPerSecond: number | null;
  plateauMemoryMb: number | null;
  plateauRepetitions: number | null;
  /** Smallest memory the evidence does not put below the plateau, every smaller size shown below it. */
  kneeMemoryMb: number | null;
  /** Why there is no knee (one size, n < 3, a CPU-bound plateau); null when there is one or no rate at all. */
  kneeUnknownReason: string | null;
  /** Least-squares slope on the rising part (start of the rise to the knee), bit/s per GB (1,024 MB) of memory; 0 when flat. */
  slopeBitsPerSecondPerGigabyte: number | null;
  /** Cheapest memory size (cost per GB moved) among those at the plateau, never a CPU-bound one. */
  recommendedMemoryMb: number | null;
  /** Repetitions behind the recommended size's median. */
  recommendedRepetitions: number | null;
  recommendedCostPerGigabyteUsd: number | null;
  /** The recommended size's median effective (whole-transfer) rate, for context. */
  recommendedEffectiveBitsPerSecond: number | null;
  /** Why nothing is recommended; null when a size is, or when there is no rate at all. */
  noRecommendationReason: string | null;
  /** Sizes at the plateau left out of the recommendation because they are CPU-bound. */
  cpuBoundLeftOutMemoryMb: number[];
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
  /** The run's streams sweeps with their per-flow cap fits (streams.md, the console). */
  streams: StreamsSweep[];
  /** The latency probe's cells and their curves by memory size (empty without latency cells). */
  latency: { cells: LatencyCell[]; curves: LatencyCurve[] };
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
  // the per-flow cap is fitted on the same sustained rates the cells compare it with
  const sweeps = streamsSweeps(
    measured,
    (record) => recordRates(record, ceilingOfRecord(manifest, record))?.sustainedBitsPerSecond ?? null,
  );
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
    plannedInvocations: manifest.cells.reduce((sum, cell) => sum + plannedInvocations(cell), 0),
    recordedInvocations: measured.length,
    failedInvocations: measured.filter((r) => !r.ok).length,
    cells,
    curves,
    quotas,
    buckets: bucketCells(measured, (record) => bucketCeilingOfRecord(manifest, record)),
    streams: sweeps,
    latency: latencyOf(measured, facts),
    prices: { retrievedOn: prices.retrievedOn, source: prices.source, byTarget: byTargetPrice },
  };
}

function latencyOf(records: ResultRecord[], facts: RunManifest["platforms"]): RunAnalysis["latency"] {
  const cells = latencyCells(records, facts);
  return { cells, curves: latencyCurves(cells) };
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
  const ceiling = ceilingInForce(cell, facts);
  const rates = records
    .map((record) => recordRates(record, ceiling?.bitsPerSecond ?? null))
    .filter((r): r is RecordRates => r !== null);
  const pick = (f: (r: RecordRates) => number | null) =>
    describe(rates.map(f).filter((v): v is number => v !== null));
  const ok = records.filter((r) => r.ok && r.bitsPerSecond !== null);
  const effective = pick((r) => r.effectiveBitsPerSecond);
  const sustainedValues = rates
    .map((r) => r.sustainedBitsPerSecond)
    .filter((v): v is number => v !== null && Number.isFinite(v))
    .sort((x, y) => x - y);
  const sustained = describe(sustainedValues);
  const sustainedNullReasons = [
    ...new Set(rates.map((r) => r.sustainedNullReason).filter((v): v is string => v !== null)),
  ];
  const cpuCores = pick((r) => r.cpuCores);
  const bytes = describe(ok.map((r) => r.bytes).filter((v): v is number => v !== null));
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
    ...cellBurst(rates.flatMap((r) => (r.burst ? [r.burst] : []))),
    burstFound: { detected: count("detected"), none: count("none"), undetermined: count("undetermined") },
    sustained,
    sustainedIntervalMedian: pick((r) => r.sustainedMedianBitsPerSecond),
    sustainedValues,
    sustainedNullReasons,
    sent: pick((r) => r.sentBitsPerSecond),
    received: pick((r) => r.receivedBitsPerSecond),
    transferSeconds: pick((r) => r.transferSeconds),
    wholeSeconds: pick((r) => r.wholeSeconds),
    cpuCores,
    retransmits: describe(ok.map((r) => r.retransmits).filter((v): v is number => v !== null)),
    bytes,
    quotaPercent: sustained && ceiling ? (sustained.median / ceiling.bitsPerSecond) * 100 : null,
    ceiling,
    insideBurst: {
      repetitions: rates.filter((r) => r.insideBurst !== null).length,
      excessBytes: pick((r) => r.insideBurst?.excessBytes ?? null),
      seconds: pick((r) => r.insideBurst?.seconds ?? null),
    },
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
        sustainedMissing: sustained ? null : (sustainedNullReasons[0] ?? null),
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
    if (!movesData(cell.probe)) continue;
    const key = `${cell.targetKey}|${cell.arch}|${cell.probeKey}`;
    groups.set(key, [...(groups.get(key) ?? []), cell]);
  }
  return [...groups.values()].map((group) => curveAnalysis(group, moveGigabytes));
}

const sizeText = (memoryMb: number) => `${memoryMb.toLocaleString("en-US")} MB`;

export function curveAnalysis(group: CellStatistics[], moveGigabytes: number): CurveAnalysis {
  const first = group[0] as CellStatistics;
  const bySize = [...group].sort((a, b) => a.memoryMb - b.memoryMb);
  // headlines use the sustained rate only; a size without one is listed, never filled with the average
  const measured = bySize.filter((c) => c.sustained !== null);
  const missing = bySize
    .filter((c) => c.sustained === null && c.effective !== null)
    .map((c) => ({ memoryMb: c.memoryMb, reason: c.sustainedNullReasons.join("; ") || "no sustained rate" }));
  const rate = (c: CellStatistics) => (c.sustained as Spread).median;
  const base = {
    targetKey: first.targetKey,
    target: first.target,
    platform: first.platform,
    arch: first.arch,
    probeKey: first.probeKey,
    probeLabel: first.probeLabel,
    rateBasis: "sustained" as const,
    missing,
  };
  const none = {
    kneeMemoryMb: null,
    slopeBitsPerSecondPerGigabyte: null,
    recommendedMemoryMb: null,
    recommendedRepetitions: null,
    recommendedCostPerGigabyteUsd: null,
    recommendedEffectiveBitsPerSecond: null,
    cpuBoundLeftOutMemoryMb: [],
    moveSeconds: null,
  };
  if (measured.length === 0) {
    return {
      ...base,
      ...none,
      points: [],
      plateauBitsPerSecond: null,
      plateauMemoryMb: null,
      plateauRepetitions: null,
      kneeUnknownReason: null,
      noRecommendationReason: null,
    };
  }
  const told = measured.filter((c) => c.sustainedValues.length >= intervalMinimumRepetitions);
  // ties go to the smaller size: the plateau is where the rate is first reached
  const plateau = (told.length > 0 ? told : measured).reduce((best, c) => (rate(c) > rate(best) ? c : best));
  const plateauRate = rate(plateau);
  const points = measured.map((c) => pointOf(c, plateau));
  const unknown = kneeUnknown(measured, points, plateau);
  const plateauFields = {
    ...base,
    points,
    plateauBitsPerSecond: plateauRate,
    plateauMemoryMb: plateau.memoryMb,
    plateauRepetitions: plateau.sustainedValues.length,
  };
  if (unknown !== null)
    return { ...plateauFields, ...none, kneeUnknownReason: unknown, noRecommendationReason: unknown };
  const kneeIndex = points.findIndex((p) => atPlateau(p));
  const knee = points[kneeIndex] as CurvePoint;
  // the rise starts at the last point before the knee still within 5% of the smallest size's rate
  const startLevel = (points[0] as CurvePoint).medianBitsPerSecond * (1 + minimumEffectShare);
  let riseStart = 0;
  for (let i = 0; i < kneeIndex; i += 1)
    if ((points[i] as CurvePoint).medianBitsPerSecond <= startLevel) riseStart = i;
  const rising = points
    .slice(riseStart, kneeIndex + 1)
    .map((p) => ({ x: p.memoryMb / 1024, y: p.medianBitsPerSecond }));
  const risingSlope = kneeIndex === 0 ? 0 : slope(rising);
  const atTop = measured.filter((_, i) => atPlateau(points[i] as CurvePoint));
  const candidates = atTop.filter((c) => c.cpuBound !== true);
  const cpuBoundLeftOutMemoryMb = atTop.filter((c) => c.cpuBound === true).map((c) => c.memoryMb);
  const kneeFields = {
    ...plateauFields,
    kneeMemoryMb: knee.memoryMb,
    kneeUnknownReason: null,
    slopeBitsPerSecondPerGigabyte: risingSlope,
    cpuBoundLeftOutMemoryMb,
  };
  if (candidates.length === 0) {
    return {
      ...none,
      ...kneeFields,
      noRecommendationReason: `every size at the plateau is CPU-bound (${cpuBoundLeftOutMemoryMb.map(sizeText).join(", ")}): the client's CPU, not the network, may set the rate`,
    };
  }
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
    ...kneeFields,
    recommendedMemoryMb: recommended.memoryMb,
    recommendedRepetitions: recommended.sustainedValues.length,
    recommendedCostPerGigabyteUsd: recommended.costPerGigabyteUsd,
    recommendedEffectiveBitsPerSecond: recommended.effective?.median ?? null,
    noRecommendationReason: null,
    moveSeconds: recommendedRate > 0 ? (moveGigabytes * 8e9) / recommendedRate : null,
  };
}

const atPlateau = (p: CurvePoint) => p.standing === "plateau" || p.standing === "reaches";

/** A size against the plateau's size: below only when the whole interval says so. */
function pointOf(cell: CellStatistics, plateau: CellStatistics): CurvePoint {
  const medianBitsPerSecond = (cell.sustained as Spread).median;
  const common = {
    memoryMb: cell.memoryMb,
    medianBitsPerSecond,
    n: cell.sustainedValues.length,
    cpuBound: cell.cpuBound,
  };
  if (cell === plateau) return { ...common, standing: "plateau", interval: null };
  const interval = medianDifferenceInterval(plateau.sustainedValues, cell.sustainedValues);
  if (interval === null) return { ...common, standing: "untold", interval: null };
  const plateauRate = (plateau.sustained as Spread).median;
  return {
    ...common,
    standing: interval.high <= -minimumEffectShare * plateauRate ? "below" : "reaches",
    interval: { lowBitsPerSecond: interval.low, highBitsPerSecond: interval.high },
  };
}

/** Why the curve has no knee; null when it has one. */
function kneeUnknown(
  measured: CellStatistics[],
  points: CurvePoint[],
  plateau: CellStatistics,
): string | null {
  if (measured.length === 1)
    return `one size measured (${sizeText(plateau.memoryMb)}): a knee and a recommendation need two or more`;
  const few = points.filter((p) => p.n < intervalMinimumRepetitions);
  const needs = `(an interval on the medians needs ${intervalMinimumRepetitions} repetitions a size)`;
  if (few.length === points.length) {
    const ns = [...new Set(points.map((p) => p.n))].sort((a, b) => a - b);
    return `n=${ns.join("-")} at every size ${needs}: where more memory stops helping cannot be told`;
  }
  // a plateau held by the client's CPU below the limit in force could rise with more CPU (memory)
  if (plateau.cpuBound === true && plateau.bottleneck.kind !== "quota")
    return `the plateau's size (${sizeText(plateau.memoryMb)}) is CPU-bound: more memory, and so more CPU, may give more`;
  const kneeIndex = points.findIndex((p) => atPlateau(p));
  const untoldBefore = points.slice(0, kneeIndex).filter((p) => p.standing === "untold");
  if (untoldBefore.length > 0)
    return `${untoldBefore.map((p) => `${sizeText(p.memoryMb)} has n=${p.n}`).join(", ")} ${needs}: the smallest size at the plateau cannot be told`;
  return null;
}
