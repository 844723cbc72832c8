import assert from "node:assert/strict";
import { test } from "node:test";
import { bootstrapMedianDifference, medianDifferenceInterval } from "../../src/results/median-interval.js";
import { seededRandom } from "../../src/results/seeded-random.js";

const permutations = <T>(values: T[]): T[][] =>
  values.length <= 1
    ? [values]
    : values.flatMap((value, i) =>
        permutations([...values.slice(0, i), ...values.slice(i + 1)]).map((rest) => [value, ...rest]),
      );

test("3 a side: the interval is [min(b) - max(a), max(b) - min(a)], the 2,000 resamples' interval for every order of the values, ties too", () => {
  const random = seededRandom(3);
  const sides = [
    ...Array.from({ length: 6 }, () => [0, 1, 2].map(() => 500e6 + random() * 200e6)),
    [600e6, 600e6, 610e6],
    [600e6, 610e6, 610e6],
    [600e6, 600e6, 600e6],
  ];
  let compared = 0;
  for (const a of sides.slice(0, 4))
    for (const b of sides.slice(3))
      for (const orderA of permutations(a))
        for (const orderB of permutations(b)) {
          const exact = medianDifferenceInterval(orderA, orderB);
          assert.deepEqual(exact, bootstrapMedianDifference(orderA, orderB), `${orderA} vs ${orderB}`);
          assert.equal(exact?.low, Math.min(...b) - Math.max(...a));
          compared += 1;
        }
  assert.equal(compared, 4 * 6 * 36);
});

test("more than 3 a side is resampled: 5 values give an interval inside the min-max one", () => {
  const a = [590e6, 600e6, 605e6, 610e6, 640e6];
  const b = [700e6, 710e6, 712e6, 715e6, 760e6];
  const interval = medianDifferenceInterval(a, b);
  assert.ok(interval);
  assert.deepEqual(interval, bootstrapMedianDifference(a, b));
  assert.equal(interval.difference, 712e6 - 605e6);
  // the extremes' mass (a median of 5 draws at an end: 5.8%, squared 0.3%) is under the 2.5% tail
  assert.ok(interval.low > 700e6 - 640e6 && interval.high < 760e6 - 590e6, JSON.stringify(interval));
});

test("fewer than 3 a side: no interval", () => {
  assert.equal(medianDifferenceInterval([1, 2], [3, 4, 5]), null);
  assert.equal(medianDifferenceInterval([1, 2, 3], [4, 5]), null);
});
