/**
 * The one reader of a record's `samples`. Records of schemaVersion 2 carry each
 * interval's measured start and duration; schemaVersion-1 records carry only a nominal interval
 * and the length of the last, partial one, so their boundaries are reconstructed as the sampler
 * assumed them (`index x intervalSeconds`). Everything else reads samples through here.
 */

import type { IntervalSamples } from "../probes/interval-sampler.js";

export type { IntervalSamples };

const isNumberArray = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((v) => typeof v === "number" && Number.isFinite(v) && v >= 0);

/** Either shape in, the measured-time shape out; null for absent or malformed samples (never throws). */
export function normalizeSamples(raw: unknown): IntervalSamples | null {
  if (raw === null || typeof raw !== "object") return null;
  const value = raw as Record<string, unknown>;
  const intervalSeconds = value.intervalSeconds;
  if (typeof intervalSeconds !== "number" || !(intervalSeconds > 0) || !isNumberArray(value.bytes))
    return null;
  const bytes = value.bytes;
  if (isNumberArray(value.startSeconds) && isNumberArray(value.durationSeconds)) {
    if (value.startSeconds.length !== bytes.length || value.durationSeconds.length !== bytes.length)
      return null;
    return {
      intervalSeconds,
      startSeconds: [...value.startSeconds],
      durationSeconds: [...value.durationSeconds],
      bytes: [...bytes],
    };
  }
  if (typeof value.lastIntervalSeconds !== "number" || !(value.lastIntervalSeconds >= 0)) return null;
  // Legacy: every interval nominal except a partial last one. A last interval of a millisecond or
  // less was a full one the sampler closed just before stopping (its stop() adds no sliver then).
  const last = bytes.length - 1;
  const lastSeconds = value.lastIntervalSeconds;
  const partialLast = lastSeconds > 0.001 && lastSeconds < intervalSeconds;
  return repairLegacyZeros({
    intervalSeconds,
    startSeconds: bytes.map((_, i) => i * intervalSeconds),
    durationSeconds: bytes.map((_, i) => (i === last && partialLast ? lastSeconds : intervalSeconds)),
    bytes: [...bytes],
  });
}

/**
 * The schemaVersion-1 sampler credited bytes to nominal boundaries: when its timer fired late, an
 * interval really lasted longer than 250 ms, and once the lag reached a whole interval it recorded
 * a 0-byte interval to catch up (seen in real runs: a 250 ms sample of 0 bytes followed by one of 179 MB).
 * Its interval rates are therefore inflated by the lag, and the zeros are false. The repair gives
 * the lost time back where it went: a run of k non-zero intervals followed by m zeros spanned k + m
 * nominal intervals, so each of the k lasted (k + m) / k intervals, and the zeros go. A zero at the
 * very start (nothing moved yet) and the last interval stay as they are. Samples with measured
 * times are never touched. Measured on the lab: an 8 s download whose true rate after the burst
 * was 594 Mbit/s had a raw interval median of 642, repaired 587.
 */
function repairLegacyZeros(samples: IntervalSamples): IntervalSamples {
  const { bytes, durationSeconds } = samples;
  const keptBytes: number[] = [];
  const keptDurations: number[] = [];
  let runStart = 0;
  let i = 0;
  while (i < bytes.length) {
    const isLast = i === bytes.length - 1;
    if (bytes[i] !== 0 || isLast || keptBytes.length === runStart) {
      if (bytes[i] === 0 && keptBytes.length === runStart) runStart = keptBytes.length + 1;
      keptBytes.push(bytes[i] as number);
      keptDurations.push(durationSeconds[i] as number);
      i += 1;
      continue;
    }
    let zeros = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) {
      zeros += 1;
      i += 1;
    }
    const k = keptBytes.length - runStart;
    const stretch = (k + zeros) / k;
    for (let j = runStart; j < keptBytes.length; j += 1)
      keptDurations[j] = (keptDurations[j] as number) * stretch;
    runStart = keptBytes.length;
  }
  const startSeconds: number[] = [];
  let t = samples.startSeconds[0] ?? 0;
  for (const d of keptDurations) {
    startSeconds.push(t);
    t += d;
  }
  return {
    intervalSeconds: samples.intervalSeconds,
    startSeconds,
    durationSeconds: keptDurations,
    bytes: keptBytes,
  };
}

/** One interval's rate, with its measured time. */
export interface IntervalRate {
  startSeconds: number;
  durationSeconds: number;
  bytes: number;
  bitsPerSecond: number;
}

/**
 * The intervals as rates, leaving out slivers shorter than half the nominal interval: a few bytes
 * over a few milliseconds give a wild rate (their bytes still count in the whole-transfer rate).
 */
export function intervalRates(samples: IntervalSamples | null): IntervalRate[] {
  if (!samples) return [];
  const rates: IntervalRate[] = [];
  samples.bytes.forEach((bytes, i) => {
    const durationSeconds = samples.durationSeconds[i] as number;
    if (!(durationSeconds >= samples.intervalSeconds / 2)) return;
    rates.push({
      startSeconds: samples.startSeconds[i] as number,
      durationSeconds,
      bytes,
      bitsPerSecond: (bytes * 8) / durationSeconds,
    });
  });
  return rates;
}
