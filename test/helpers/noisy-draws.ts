import type { Cell } from "../../src/plan/cell.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { seededRandom } from "../../src/results/seeded-random.js";
import { fixtureRecord } from "./fixture-run.js";

/**
 * Seeded draws for the statistical tests: normal run-to-run noise (Box-Muller on the seeded
 * generator), so a test of "at least 95% of draws" gives the same count on every host.
 */
export function normalDraws(seed: number): (mean: number, relativeSd: number) => number {
  const random = seededRandom(seed);
  return (mean, relativeSd) => {
    const u = 1 - random();
    const v = random();
    return mean * (1 + relativeSd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
  };
}

/**
 * One record per repetition of each cell: a 1 s burst at 2,800 Mbit/s, then the cell's sustained
 * rate (its `meanOf` with the draw's noise) for 3 s, as the lab's 4 s iperf3 records look.
 */
export function noisyRecords(
  cells: readonly Cell[],
  repetitions: number,
  meanOf: (cell: Cell) => number,
  draw: (mean: number, relativeSd: number) => number,
  relativeSd: number,
): ResultRecord[] {
  return cells.flatMap((cell) =>
    Array.from({ length: repetitions }, (_, i) => {
      const sustained = draw(meanOf(cell), relativeSd);
      const burst = Math.max(2800e6, sustained);
      return fixtureRecord(cell, i + 1, {
        bitsPerSecond: (4 * burst + 12 * sustained) / 16,
        sustainedBitsPerSecond: sustained,
        burstFactor: burst / sustained,
      });
    }),
  );
}
