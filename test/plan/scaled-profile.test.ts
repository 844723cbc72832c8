import assert from "node:assert/strict";
import { test } from "node:test";
import { builtInProfiles } from "../../src/plan/lab-profile.js";
import { directionShape, s3RequestBytesPerSecond } from "../../src/platforms/local/profiles.js";
import { scaledMib, scaledProfile } from "../helpers/scaled-profile.js";

test("a profile at 1/8: every rate and byte count divided, times kept, the shaper's figures divided", () => {
  const oregon = builtInProfiles.find((p) => p.name === "seed-oregon-2026");
  assert.ok(oregon);
  const scaled = scaledProfile(oregon, 8);
  assert.equal(scaled.name, "seed-oregon-2026-1in8");
  assert.equal(scaled.label, "seed-oregon-2026 at 1/8 rate");
  const p = scaled.profile;
  assert.deepEqual(
    p.download.map((point) => point.megabitsPerSecond),
    [78.125, 78.125, 375],
  );
  assert.deepEqual(p.burst, { peakMegabitsPerSecond: 500, bytes: 7_500_000 });
  assert.equal(p.flowMegabitsPerSecond, 75);
  assert.equal(p.s3ConnectionBytesPerSecond, 11_250_000);
  assert.equal(p.payload, true);
  assert.equal(p.mbPerVcpu, oregon.mbPerVcpu, "the CPU share is kept by default");
  for (const memoryMb of [1_024, 10_240]) {
    const full = directionShape(oregon, "upload", memoryMb);
    const small = directionShape(p, "upload", memoryMb);
    assert.ok(Math.abs(small.rateBitsPerSecond * 8 - full.rateBitsPerSecond) <= 8);
    assert.ok(Math.abs((small.peakBitsPerSecond ?? 0) * 8 - (full.peakBitsPerSecond ?? 0)) <= 8);
    assert.ok(Math.abs(small.bucketBytes * 8 - full.bucketBytes) <= 8);
  }
  // the flow cap (75 Mbit/s of payload) is below the connection cap, as 600 is below 90 MB/s
  assert.equal(s3RequestBytesPerSecond(p), (s3RequestBytesPerSecond(oregon) ?? 0) / 8);
});

test("a burst given in seconds keeps its seconds; a scaled CPU share says so; bad divisors are refused", () => {
  const scaled = scaledProfile("default-625", 5, { cpu: "scaled" });
  assert.deepEqual(scaled.profile.burst, { peakMegabitsPerSecond: 560, seconds: 1 });
  assert.equal(scaled.profile.mbPerVcpu, 1769 * 5);
  assert.equal(scaled.label, "default-625 at 1/5 rate, CPU share 1/5");
  const full = directionShape(builtInProfiles[0] as (typeof builtInProfiles)[number], "download", 1024);
  const small = directionShape(scaled.profile, "download", 1024);
  assert.equal(small.bucketBytes * 5, full.bucketBytes);
  assert.throws(() => scaledProfile("default-625", 0.5), /divisor: 0.5 is not allowed/);
  assert.throws(() => scaledProfile("nope", 2), /profile: "nope" is not a built-in lab profile \(allowed: /);
  assert.equal(
    scaledProfile(
      {
        name: "host",
        download: [{ memoryMb: 128, megabitsPerSecond: 625 }],
        upload: [{ memoryMb: 128, megabitsPerSecond: 625 }],
        hostMegabitsPerSecond: 900,
      },
      5,
    ).profile.hostMegabitsPerSecond,
    180,
  );
});

test("a size scaled with its profile stays whole MiB, at least 1, or is refused naming it", () => {
  assert.equal(scaledMib(4_608, 8, "an object"), 576);
  assert.equal(scaledMib(16, 8, "a chunk"), 2);
  assert.throws(
    () => scaledMib(12, 8, "a chunk"),
    /divisor: 8 does not divide a chunk of 12 MiB into whole MiB/,
  );
  assert.throws(() => scaledMib(4, 8, "a part"), /a part of 4 MiB/);
});
