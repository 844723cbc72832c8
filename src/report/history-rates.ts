import { recordRates } from "../results/record-rates.js";
import type { ResultRecord } from "../results/result-record.js";

/**
 * The one place the history report asks the analysis for a record's burst and sustained rates
 * (src/results/record-rates.ts owns how they are found); when that changes, only this adapter does.
 */
export interface HistoryRates {
  sustainedBitsPerSecond: number | null;
  burstBitsPerSecond: number | null;
}

export function historyRates(record: ResultRecord): HistoryRates | null {
  const rates = recordRates(record);
  if (!rates) return null;
  return {
    sustainedBitsPerSecond: rates.sustainedBitsPerSecond,
    burstBitsPerSecond: rates.burst?.bitsPerSecond ?? null,
  };
}
