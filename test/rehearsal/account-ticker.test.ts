import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { AccountTicker } from "./account-ticker.js";

test("the ticker's passes never overlap: a test's pass waits for the timer's", async () => {
  let active = 0;
  let most = 0;
  let passes = 0;
  const ticker = new AccountTicker(
    [
      {
        name: "slow step",
        run: async () => {
          active += 1;
          most = Math.max(most, active);
          await sleep(30);
          active -= 1;
          passes += 1;
        },
      },
    ],
    10,
  );
  ticker.start();
  try {
    await sleep(15);
    await Promise.all([ticker.tick(), ticker.tick(), sleep(40).then(() => ticker.tick())]);
  } finally {
    await ticker.stop();
  }
  assert.equal(most, 1);
  assert.ok(passes >= 3, `${passes} passes`);
  assert.deepEqual(ticker.problems, []);
});

test("a test's pass starts after the call: what the CLI just did is seen", async () => {
  const seen: number[] = [];
  let state = 0;
  const ticker = new AccountTicker([{ name: "look", run: async () => void seen.push(state) }], 1_000);
  state = 1;
  await ticker.tick();
  state = 2;
  await ticker.tick();
  await ticker.stop();
  assert.deepEqual(seen, [1, 2]);
});
