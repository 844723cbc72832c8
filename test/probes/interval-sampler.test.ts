import assert from "node:assert/strict";
import { test } from "node:test";
import { IntervalSampler } from "../../src/probes/interval-sampler.js";

function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // deliberately block the event loop, as a GC pause or a CPU-starved environment would
  }
}

test("intervals carry measured starts and lengths that tile the measured period", async () => {
  const sampler = new IntervalSampler(50);
  const startMs = performance.now();
  sampler.start(startMs);
  const feeder = setInterval(() => sampler.add(1000), 5);
  await new Promise((resolve) => setTimeout(resolve, 420));
  clearInterval(feeder);
  const endMs = performance.now();
  const samples = sampler.stop(endMs);
  assert.equal(samples.intervalSeconds, 0.05);
  assert.ok(samples.bytes.length >= 5, `intervals: ${samples.bytes.length}`);
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
  assert.ok(Math.abs(totalSeconds - (endMs - startMs) / 1000) < 1e-9, "the intervals cover the whole period");
});

test("a late timer makes one longer interval, not a zero followed by a double", async () => {
  const sampler = new IntervalSampler(50);
  sampler.start();
  // a steady 1 byte per ms, credited when the loop gets to it (as reads after a stall are)
  let creditedUntilMs = performance.now();
  const credit = () => {
    const now = performance.now();
    sampler.add(Math.round(now - creditedUntilMs));
    creditedUntilMs = now;
  };
  const feeder = setInterval(credit, 2);
  await new Promise((resolve) => setTimeout(resolve, 120));
  busyWait(300);
  await new Promise((resolve) => setTimeout(resolve, 150));
  clearInterval(feeder);
  credit();
  const samples = sampler.stop();
  const rates = samples.bytes.map((bytes, i) => bytes / ((samples.durationSeconds[i] as number) * 1000));
  assert.ok(
    samples.durationSeconds.some((seconds) => seconds >= 0.3),
    `the stalled interval is as long as the stall: ${samples.durationSeconds.join(", ")}`,
  );
  for (const [i, rate] of rates.entries()) {
    // 1 byte/ms; generous for timer jitter on a noisy machine
    assert.ok(
      rate < 1.6,
      `interval ${i}: ${rate.toFixed(2)} bytes/ms (${samples.bytes[i]} in ${samples.durationSeconds[i]} s)`,
    );
  }
  const zeroThenDouble = samples.bytes.some(
    (bytes, i) => i + 1 < samples.bytes.length && bytes === 0 && (rates[i + 1] as number) > 1.6,
  );
  assert.equal(zeroThenDouble, false);
});

test("a sliver of a last interval is merged into the one before", async () => {
  const sampler = new IntervalSampler(100);
  const startMs = performance.now();
  sampler.start(startMs);
  sampler.add(10);
  await new Promise((resolve) => setTimeout(resolve, 160));
  sampler.add(5);
  const samples = sampler.stop(performance.now());
  const afterFirst = samples.bytes.length;
  assert.ok(afterFirst >= 1);
  // stop right after a close: no interval shorter than a quarter of the nominal one remains
  for (const seconds of samples.durationSeconds.slice(0, -1)) assert.ok(seconds >= 0.025);
  assert.equal(
    samples.bytes.reduce((sum, bytes) => sum + bytes, 0),
    15,
  );
});

test("restart drops what was sampled (end of the omit period)", async () => {
  const sampler = new IntervalSampler(20);
  sampler.start();
  sampler.add(99);
  await new Promise((resolve) => setTimeout(resolve, 50));
  sampler.start();
  sampler.add(7);
  const samples = sampler.stop();
  assert.equal(
    samples.bytes.reduce((sum, bytes) => sum + bytes, 0),
    7,
  );
  assert.equal(samples.startSeconds[0], 0);
});

/**
 * One stall followed by a backlog arriving as a socket's would after a blocked loop: a chunk per
 * turn for 8 ms, with a 1 ms gap in the middle (a window update on its way), then nothing.
 * The backlog is paced by the wall clock, so the host descheduling this process mid-backlog
 * stretches the gap past the sampler's 2 ms window (on a real socket the next turn would read
 * what arrived meanwhile): `longestTurnGapMs` tells such an attempt from the case tested.
 */
async function stallThenBacklog() {
  const sampler = new IntervalSampler(100);
  sampler.start();
  const backlogBytes: number[] = [];
  let longestTurnGapMs = 0;
  const deliverBacklog = (): void => {
    const beganMs = performance.now();
    let lastTurnMs = beganMs;
    const turn = (): void => {
      const nowMs = performance.now();
      longestTurnGapMs = Math.max(longestTurnGapMs, nowMs - lastTurnMs);
      lastTurnMs = nowMs;
      const elapsedMs = nowMs - beganMs;
      if (elapsedMs >= 8) return;
      if (elapsedMs < 4 || elapsedMs >= 5) {
        sampler.add(64 * 1024);
        backlogBytes.push(64 * 1024);
      }
      setImmediate(turn);
    };
    setImmediate(turn);
  };
  setTimeout(() => {
    busyWait(300);
    deliverBacklog();
  }, 40);
  await new Promise((resolve) => setTimeout(resolve, 600));
  return { samples: sampler.stop(), backlogBytes, longestTurnGapMs };
}

test("after a stall, a backlog that keeps arriving over several turns lands in the interval that spans the stall", async () => {
  const attempts = [];
  // an attempt the host descheduled mid-backlog (a turn 1 ms after the last) is run again
  for (let attempt = 0; attempt < 5; attempt++) {
    const result = await stallThenBacklog();
    attempts.push(result.longestTurnGapMs.toFixed(2));
    if (result.longestTurnGapMs >= 1) continue;
    const { samples, backlogBytes } = result;
    const stalled = samples.durationSeconds.findIndex((seconds) => seconds >= 0.25);
    assert.ok(stalled >= 0, `one interval spans the stall: ${samples.durationSeconds.join(", ")}`);
    const backlogTotal = backlogBytes.reduce((a, b) => a + b, 0);
    assert.ok(
      backlogBytes.length > 3,
      `the backlog took more than the three settle turns: ${backlogBytes.length}`,
    );
    assert.equal(samples.bytes[stalled], backlogTotal, `intervals: ${samples.bytes.join(", ")}`);
    return;
  }
  assert.fail(`every attempt was descheduled mid-backlog (longest turn gaps, ms: ${attempts.join(", ")})`);
});
