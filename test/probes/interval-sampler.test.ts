import assert from "node:assert/strict";
import { test } from "node:test";
import {
  IntervalSampler,
  type IntervalSamples,
  type RunningTotal,
} from "../../src/probes/interval-sampler.js";
import { VirtualLoop } from "./support/virtual-loop.js";

/**
 * The sampler on a loop whose clock and turns the test drives (support/virtual-loop.ts): what
 * it does around a stall depends on when each turn runs, which a loaded host does not keep, so
 * the stall, the backlog's pace and the timers' lateness are written here, exactly. One test
 * runs it on the real event loop, with checks that hold however late its timers are.
 */

function assertTiles(samples: IntervalSamples, periodSeconds: number): void {
  assert.equal(samples.startSeconds.length, samples.bytes.length);
  assert.equal(samples.durationSeconds.length, samples.bytes.length);
  assert.equal(samples.startSeconds[0], 0);
  for (let i = 1; i < samples.bytes.length; i += 1) {
    const previousEnd = (samples.startSeconds[i - 1] as number) + (samples.durationSeconds[i - 1] as number);
    assert.ok(
      Math.abs((samples.startSeconds[i] as number) - previousEnd) < 1e-9,
      `interval ${i} starts where ${i - 1} ended`,
    );
  }
  const last = samples.bytes.length - 1;
  const totalSeconds = (samples.startSeconds[last] as number) + (samples.durationSeconds[last] as number);
  assert.ok(Math.abs(totalSeconds - periodSeconds) < 1e-9, "the intervals cover the whole period");
}

const total = (values: number[]) => values.reduce((sum, value) => sum + value, 0);

test("intervals carry measured starts and lengths that tile the measured period", () => {
  const loop = new VirtualLoop();
  const sampler = new IntervalSampler(50, undefined, loop);
  sampler.start(0);
  loop.run(420, 5, () => sampler.add(1000));
  const samples = sampler.stop(420);
  assert.equal(samples.intervalSeconds, 0.05);
  assertTiles(samples, 0.42);
  // each close waits three turns after its timer (5 ms apart here): 0-60 ms, then 50 ms each
  assert.deepEqual(
    samples.durationSeconds.map((seconds) => Math.round(seconds * 1000)),
    [60, 50, 50, 50, 50, 50, 50, 60],
  );
  assert.equal(total(samples.bytes), 84 * 1000, "every byte added is in one interval");
});

test("on the real event loop: the intervals tile the period and hold every byte added", async () => {
  const sampler = new IntervalSampler(50);
  const startMs = performance.now();
  sampler.start(startMs);
  let added = 0;
  const feeder = setInterval(() => {
    sampler.add(1000);
    added += 1000;
  }, 5);
  await new Promise((resolve) => setTimeout(resolve, 420));
  clearInterval(feeder);
  const endMs = performance.now();
  const samples = sampler.stop(endMs);
  assert.ok(samples.bytes.length >= 1);
  assertTiles(samples, (endMs - startMs) / 1000);
  assert.equal(total(samples.bytes), added);
});

test("a late timer makes one longer interval, not a zero followed by a double", () => {
  const loop = new VirtualLoop();
  const sampler = new IntervalSampler(50, undefined, loop);
  sampler.start(0);
  // a steady 1 byte per ms, credited when the loop gets to it (as reads after a stall are)
  let creditedUntilMs = 0;
  const credit = (atMs: number) => {
    sampler.add(atMs - creditedUntilMs);
    creditedUntilMs = atMs;
  };
  loop.run(120, 2, credit);
  // the loop is blocked from 120 to 420 ms: the next turn reads the 300 ms that arrived meanwhile
  loop.turn(420, () => credit(420));
  loop.run(570, 2, credit);
  const samples = sampler.stop(570);
  assertTiles(samples, 0.57);
  const rates = samples.bytes.map((bytes, i) => bytes / ((samples.durationSeconds[i] as number) * 1000));
  const table = samples.bytes.map((bytes, i) => `${bytes} in ${samples.durationSeconds[i]} s`).join(", ");
  assert.ok(
    samples.durationSeconds.some((seconds) => seconds >= 0.3),
    `the stalled interval is as long as the stall: ${table}`,
  );
  for (const [i, rate] of rates.entries()) {
    assert.ok(Math.abs(rate - 1) < 1e-6, `interval ${i}: ${rate} bytes/ms, not the 1 that flowed (${table})`);
  }
});

test("a sliver of a last interval is merged into the one before", () => {
  const loop = new VirtualLoop();
  const sampler = new IntervalSampler(100, undefined, loop);
  sampler.start(0);
  sampler.add(10);
  // the first close: its timer at 100 ms, three turns later at 110
  loop.run(130, 5);
  sampler.add(5);
  const merged = sampler.stop(130);
  assert.deepEqual(merged.bytes, [15]);
  assert.deepEqual(merged.durationSeconds, [0.13]);

  const longer = new IntervalSampler(100, undefined, loop);
  longer.start(130);
  longer.add(10);
  loop.run(300, 5);
  longer.add(5);
  // 60 ms after the close at 240: more than half an interval, an interval of its own
  const kept = longer.stop(300);
  assert.deepEqual(kept.bytes, [10, 5]);
  assert.deepEqual(
    kept.durationSeconds.map((seconds) => Math.round(seconds * 1000)),
    [110, 60],
  );
});

test("restart drops what was sampled (end of the omit period)", () => {
  const loop = new VirtualLoop();
  const sampler = new IntervalSampler(20, undefined, loop);
  sampler.start(0);
  sampler.add(99);
  loop.run(50, 5);
  sampler.start(50);
  sampler.add(7);
  const samples = sampler.stop(50);
  assert.equal(total(samples.bytes), 7);
  assert.equal(samples.startSeconds[0], 0);
});

test("after a stall, a backlog that keeps arriving over several turns lands in the interval that spans the stall", () => {
  const loop = new VirtualLoop();
  const sampler = new IntervalSampler(100, undefined, loop);
  sampler.start(0);
  loop.run(40, 1);
  // blocked from 40 to 340 ms; then the backlog arrives as a socket's would: a chunk per turn
  // (turns 0.25 ms apart) for 8 ms, with a 1 ms gap in the middle (a window update on its way)
  const backlogBytes: number[] = [];
  const deliver = (atMs: number) => {
    const elapsedMs = atMs - 340;
    if (elapsedMs < 8 && (elapsedMs < 4 || elapsedMs >= 5)) {
      sampler.add(64 * 1024);
      backlogBytes.push(64 * 1024);
    }
  };
  loop.turn(340, () => deliver(340));
  loop.run(600, 0.25, deliver);
  const samples = sampler.stop(600);
  assertTiles(samples, 0.6);
  const stalled = samples.durationSeconds.findIndex((seconds) => seconds >= 0.25);
  assert.ok(stalled >= 0, `one interval spans the stall: ${samples.durationSeconds.join(", ")}`);
  assert.ok(
    backlogBytes.length > 3,
    `the backlog took more than the three settle turns: ${backlogBytes.length}`,
  );
  assert.equal(samples.bytes[stalled], total(backlogBytes), `intervals: ${samples.bytes.join(", ")}`);
  assert.equal(total(samples.bytes), total(backlogBytes));
});

test("a backlog with a gap longer than the sampler's window: the rest goes to the next interval, no byte lost", () => {
  const loop = new VirtualLoop();
  const sampler = new IntervalSampler(100, undefined, loop);
  sampler.start(0);
  loop.run(40, 1);
  // as above, but the gap is 3 ms: past the 2 ms in which a backlog must bring 64 KiB to keep the close waiting
  let before = 0;
  let after = 0;
  const deliver = (atMs: number) => {
    const elapsedMs = atMs - 340;
    if (elapsedMs < 4) before += 64 * 1024;
    else if (elapsedMs >= 7 && elapsedMs < 11) after += 64 * 1024;
    else return;
    sampler.add(64 * 1024);
  };
  loop.turn(340, () => deliver(340));
  loop.run(600, 0.25, deliver);
  const samples = sampler.stop(600);
  const stalled = samples.durationSeconds.findIndex((seconds) => seconds >= 0.25);
  assert.equal(samples.bytes[stalled], before, `intervals: ${samples.bytes.join(", ")}`);
  assert.equal(samples.bytes[stalled + 1], after);
});

/**
 * A kernel-read total (the bytes the peer acknowledged, read from /proc) is true when the table
 * was read. A busy run's s3-put showed the process paused 50 ms between that read and the close's
 * end: the interval got the time but not its bytes, the next one the bytes (77 then 120 Mbit/s
 * on a 100 Mbit/s link). The close now ends where the total was true.
 */
test("a pause between the total's read and the close: the interval ends when the total was true", () => {
  const loop = new VirtualLoop();
  // one byte per ms crosses the link whatever the process does; each read sees what crossed by then
  let readAtMs: number | null = null;
  let freshReads = 0;
  const acknowledged: RunningTotal = {
    read: (fresh) => {
      readAtMs = loop.nowMs();
      // the start's read, two closes, then a 50 ms pause right after the third close's read
      if (fresh && ++freshReads === 4) loop.pause(50);
      return readAtMs;
    },
    takenAtMs: () => readAtMs,
  };
  const sampler = new IntervalSampler(50, acknowledged, loop);
  sampler.start(0);
  loop.run(400, 2);
  const samples = sampler.stop(400);
  assertTiles(samples, 0.4);
  assert.equal(total(samples.bytes), 400, "every byte in one interval");
  const rates = samples.bytes.map((bytes, i) => bytes / ((samples.durationSeconds[i] as number) * 1000));
  assert.ok(
    rates.every((rate) => Math.abs(rate - 1) < 1e-9),
    `every interval at the link's 1 byte/ms: ${rates.map((rate) => rate.toFixed(3)).join(", ")}`,
  );
});

/**
 * A loss being repaired: what followed the lost segment crosses the link, but the acknowledged
 * total stops at the hole until the retransmission arrives, then jumps. A close in between read
 * the link's bytes one interval late: 75 then 125 Mbit/s on a 100 Mbit/s tbf link whose own
 * counter read 97 and 95. Here one byte crosses per ms; a hole opens at 40 ms and is repaired at
 * 75 ms, the first close's timer fires at 50 ms. The close waits for the repair.
 */
test("a close while a loss is repaired waits for the repair: no interval gets the bytes of the one before", () => {
  const loop = new VirtualLoop();
  const holeMs = { from: 40, repairedAt: 75 };
  const inHole = (atMs: number) => atMs >= holeMs.from && atMs < holeMs.repairedAt;
  let readAtMs: number | null = null;
  const acknowledged: RunningTotal = {
    read: () => {
      readAtMs = loop.nowMs();
      return inHole(readAtMs) ? holeMs.from : readAtMs;
    },
    takenAtMs: () => readAtMs,
    lagging: (nowMs) => inHole(nowMs),
  };
  const sampler = new IntervalSampler(50, acknowledged, loop);
  sampler.start(0);
  loop.run(400, 1);
  const samples = sampler.stop(400);
  assertTiles(samples, 0.4);
  assert.equal(total(samples.bytes), 400, "every byte in one interval");
  const rates = samples.bytes.map((bytes, i) => bytes / ((samples.durationSeconds[i] as number) * 1000));
  assert.ok(
    rates.every((rate) => rate <= 1 + 1e-9),
    `no interval above the link's 1 byte/ms: ${rates.map((rate) => rate.toFixed(3)).join(", ")}`,
  );
  const firstSeconds = samples.durationSeconds[0] as number;
  assert.ok(
    firstSeconds >= 0.075 && firstSeconds <= 0.08,
    `the first interval ends within a look (5 ms) of the repair at 75 ms: ${firstSeconds} s`,
  );
});

test("a repair that does not end: a close waits at most four intervals", () => {
  const loop = new VirtualLoop();
  const acknowledged: RunningTotal = {
    read: () => loop.nowMs(),
    takenAtMs: () => loop.nowMs(),
    lagging: () => true,
  };
  const sampler = new IntervalSampler(50, acknowledged, loop);
  sampler.start(0);
  loop.run(1_000, 1);
  const samples = sampler.stop(1_000);
  assertTiles(samples, 1);
  assert.ok(samples.bytes.length >= 3, `${samples.bytes.length} intervals in 1 s`);
  for (const seconds of samples.durationSeconds.slice(0, -1))
    assert.ok(seconds <= 0.26 + 1e-9, `an interval of ${seconds} s: its timer (50 ms), then 200 ms at most`);
});
