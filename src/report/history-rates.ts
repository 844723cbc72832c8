import { ceilingOfRecord } from "../results/ceiling.js";
import type { RunManifest } from "../results/manifest.js";
import { recordRates } from "../results/record-rates.js";
import type { ResultRecord } from "../results/result-record.js";

/**
 * The one place the history report asks the analysis for a record's burst and sustained rates
 * (src/results/record-rates.ts owns how they are found); when that changes, only this adapter does.
 * The rates are held to the ceiling in force recorded in the record's own run (`ceiling.ts`), so
 * a run that ended inside its burst shows no sustained point rather than the burst's rate.
 */
export interface HistoryRates {
  sustainedBitsPerSecond: number | null;
  burstBitsPerSecond: number | null;
}

export function historyRates(manifest: RunManifest, record: ResultRecord): HistoryRates | null {
  const rates = recordRates(record, ceilingOfRecord(manifest, record));
  if (!rates) return null;
  return {
    sustainedBitsPerSecond: rates.sustainedBitsPerSecond,
    burstBitsPerSecond: rates.burst?.bitsPerSecond ?? null,
  };
}
