import assert from "node:assert/strict";
import { test } from "node:test";
import {
  builtInProfileNames,
  flowCapBitsPerSecond,
  interpolateMegabitsPerSecond,
  labProfileSchema,
  MAX_PACED_CONNECTION_BYTES_PER_SECOND,
} from "../../src/plan/lab-profile.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import { NOT_CHECKED, parseKernelProbe } from "../../src/platforms/local/capabilities.js";
import { CFS_PERIOD_US, quotaMicroseconds } from "../../src/platforms/local/cgroups.js";
import {
  cloudVethName,
  environmentLinkAddresses,
  labOfNamespace,
  labOwnerPid,
  privateLabName,
} from "../../src/platforms/local/lab-names.js";
import {
  chooseProfile,
  directionShape,
  environmentShape,
  resolveProfile,
  s3RequestBytesPerSecond,
} from "../../src/platforms/local/profiles.js";
import { cappedReceiveBufferBytes, cloudTcpRmem } from "../../src/platforms/local/receive-buffers.js";
import {
  CAPPED_SEND_MS,
  cappedSendBytes,
  connectionCapDirectives,
  GET_BUSY_BUFFER_BYTES,
  s3ConnectionCapBytesPerSecond,
} from "../../src/platforms/local/s3-connection-cap.js";
import {
  fqFlowCapCommand,
  peakBucketBytes,
  shapingCommands,
  tbfArguments,
} from "../../src/platforms/local/shaping.js";
import { FlowPacer } from "../../src/probes/iperf3/flow-pacer.js";

test("raised-3000 follows the announcement: 625 up to 2,048 MB, then linear to 3,000 at 10,240 MB", () => {
  const profile = resolveProfile("raised-3000");
  const mbps = (memoryMb: number) => interpolateMegabitsPerSecond(profile.download, memoryMb);
  assert.equal(mbps(128), 625);
  assert.equal(mbps(1024), 625);
  assert.equal(mbps(2048), 625);
  assert.equal(Math.round(mbps(3072)), 922);
  assert.equal(Math.round(mbps(5120)), 1516);
  assert.equal(Math.round(mbps(8192)), 2406);
  assert.equal(mbps(10_240), 3000);
});

test("default-625 is flat, with a burst of about one second at 2.8 Gbit/s", () => {
  const profile = resolveProfile("default-625");
  for (const memoryMb of [128, 1024, 10_240]) {
    const shape = directionShape(profile, "download", memoryMb);
    assert.equal(shape.rateBitsPerSecond, 625e6);
    assert.equal(shape.peakBitsPerSecond, 2800e6);
    // the bucket drains at (peak - sustained) for one second
    assert.equal(shape.bucketBytes, ((2800e6 - 625e6) * 1) / 8);
  }
  // no burst where the sustained rate is above the peak
  const fast = directionShape(resolveProfile("raised-3000"), "upload", 10_240);
  assert.equal(fast.peakBitsPerSecond, null);
  assert.ok(fast.bucketBytes >= 131_072);
});

test("CPU share is memory / 1,769 vCPU capped by the host's cores; memory limit is the memory size", () => {
  const profile = resolveProfile("default-625");
  const small = environmentShape(profile, 1024, 2);
  assert.ok(Math.abs(small.cpuCores - 1024 / 1769) < 1e-9);
  assert.equal(small.memoryLimitBytes, 1024 * 1_048_576);
  assert.equal(environmentShape(profile, 10_240, 2).cpuCores, 2);
  assert.throws(
    () => environmentShape(profile, 64, 2),
    /memoryMb: 64 is not allowed \(allowed: 128-10,240 MB\)/,
  );
});

test("the CPU share's CFS period: the kernel's 100 ms unless a profile sets cpuPeriodMs; the quota scales with it", () => {
  const profile = resolveProfile("default-625");
  assert.equal(profile.cpuPeriodMs, 100);
  assert.equal(environmentShape(profile, 128, 2).cpuPeriodMicroseconds, 100_000);
  const short = labProfileSchema.parse({ ...profile, name: "period-20", cpuPeriodMs: 20 });
  const shape = environmentShape(short, 128, 2);
  assert.equal(shape.cpuPeriodMicroseconds, 20_000);
  // 128 MB: 0.0724 of a core, 1,447 us of every 20,000 (7,236 of every 100,000)
  assert.equal(quotaMicroseconds(shape.cpuCores, shape.cpuPeriodMicroseconds), 1_447);
  assert.equal(quotaMicroseconds(shape.cpuCores), 7_236);
  // the kernel's smallest quota is 1 ms: a tinier share gets 1 ms per period
  assert.equal(quotaMicroseconds(0.01, 20_000), 1_000);
  assert.equal(quotaMicroseconds(2, 20_000), 40_000, "two cores: twice the period");
  assert.equal(CFS_PERIOD_US, 100_000);
  for (const [value, message] of [
    [0, /profiles\.0\.cpuPeriodMs: Too small: expected number to be >=1/],
    [1001, /profiles\.0\.cpuPeriodMs: Too big: expected number to be <=1000/],
    [2.5, /profiles\.0\.cpuPeriodMs: .*int/],
  ] as const)
    assert.match(
      profileProblems({
        name: "bad",
        download: profile.download,
        upload: profile.upload,
        cpuPeriodMs: value,
      }),
      message,
    );
});

/** What the plan says of a custom profile it is given (the one place custom profiles are validated). */
function profileProblems(profile: unknown): string {
  try {
    validatePlan({
      targets: [{ platform: "local", profile: "default-625" }],
      memoryMb: [1024],
      probes: [{ kind: "iperf3" }],
      profiles: [profile],
    });
  } catch (error) {
    return (error as { problems: string[] }).problems.join("\n");
  }
  assert.fail("the profile was accepted");
}

test("custom profiles are validated with the field named, and may not shadow a built-in one", () => {
  const custom = {
    name: "my-lab",
    download: [
      { memoryMb: 128, megabitsPerSecond: 100 },
      { memoryMb: 4096, megabitsPerSecond: 1000 },
    ],
    upload: [{ memoryMb: 128, megabitsPerSecond: 50 }],
  };
  const chosen = chooseProfile("my-lab", [labProfileSchema.parse(custom)]);
  assert.equal(chosen.field, "profiles.0");
  assert.equal(chooseProfile("default-625", [labProfileSchema.parse(custom)]).field, "profile default-625");
  const profile = chosen.profile;
  assert.equal(interpolateMegabitsPerSecond(profile.download, 2112), 550);
  assert.equal(interpolateMegabitsPerSecond(profile.upload, 10_240), 50);
  assert.equal(profile.burst, null);
  assert.match(
    profileProblems({ ...custom, name: "bad", download: [{ memoryMb: 128, megabitsPerSecond: -1 }] }),
    /profiles\.0\.download\.0\.megabitsPerSecond/,
  );
  assert.match(
    profileProblems({
      ...custom,
      name: "bad",
      upload: [
        { memoryMb: 2048, megabitsPerSecond: 1 },
        { memoryMb: 1024, megabitsPerSecond: 2 },
      ],
    }),
    /sorted by memoryMb/,
  );
  assert.match(profileProblems({ ...custom, name: "default-625" }), /profiles\.0\.name: .*built-in/);
  assert.match(
    profileProblems({ ...custom, name: "bad", s3ConnectionBytesPerSecond: 300_000_000 }),
    /profiles\.0\.s3ConnectionBytesPerSecond: at most 209715200 bytes\/s/,
  );
  assert.throws(
    () => resolveProfile("nope"),
    /unknown lab profile "nope" \(allowed: default-625, raised-3000, seed-oregon-2026, seed-tokyo-2026\)/,
  );
  assert.deepEqual(builtInProfileNames(), [
    "default-625",
    "raised-3000",
    "seed-oregon-2026",
    "seed-tokyo-2026",
  ]);
});

test("tbf arguments: peakrate needs an mtu covering a 64 KiB GSO packet", () => {
  const args = tbfArguments(directionShape(resolveProfile("default-625"), "download", 1024));
  assert.deepEqual(args.slice(0, 5), ["tbf", "rate", "625000000bit", "burst", "271875000"]);
  // the peak bucket holds 1 ms at the peak (350,000 bytes), not one 64 KiB packet: fewer tbf timers
  assert.deepEqual(args.slice(5, 9), ["peakrate", "2800000000bit", "mtu", "350000"]);
  const plain = tbfArguments(directionShape(resolveProfile("raised-3000"), "download", 10_240));
  assert.ok(!plain.includes("peakrate"));
});

test("lab names carry the lnblab prefix; addresses stay in 198.18.0.0/15", () => {
  const name = privateLabName(1234);
  assert.equal(name, "lnblabp1234");
  assert.equal(labOwnerPid(name), 1234);
  assert.equal(labOwnerPid("lnblab"), null);
  assert.equal(labOfNamespace("lnblabp1234-e3"), "lnblabp1234");
  assert.equal(labOfNamespace("lnblab-cloud"), "lnblab");
  assert.equal(labOfNamespace("lnblabx-e3"), null);
  assert.equal(labOfNamespace("other-e3"), null);
  assert.ok(cloudVethName(63).length <= 15);
  assert.deepEqual(environmentLinkAddresses(0), { cloud: "198.19.0.1", environment: "198.19.0.2" });
  assert.deepEqual(environmentLinkAddresses(64), { cloud: "198.19.1.1", environment: "198.19.1.2" });
});

test("fitted profiles: payload rates get the frame overhead, the burst is 60 MB, the flow cap reaches nginx", () => {
  const oregon = resolveProfile("seed-oregon-2026");
  assert.equal(oregon.payload, true);
  assert.ok(oregon.source.length > 0 && oregon.description.length > 0);
  const factor = 1_514 / 1_448;
  const at1024 = directionShape(oregon, "download", 1024);
  assert.equal(at1024.rateBitsPerSecond, Math.round(625e6 * factor));
  assert.equal(at1024.peakBitsPerSecond, Math.round(4000e6 * factor));
  assert.equal(at1024.bucketBytes, Math.round(60e6 * factor));
  // the burst also shows above the raised quota at 10,240 MB
  assert.equal(directionShape(oregon, "upload", 10_240).rateBitsPerSecond, Math.round(3000e6 * factor));
  assert.ok(directionShape(oregon, "upload", 10_240).peakBitsPerSecond !== null);
  assert.equal(flowCapBitsPerSecond(oregon), 600e6);
  assert.equal(s3RequestBytesPerSecond(oregon), 75_000_000);
  // wire-rate profiles without a cap are unchanged
  const plain = resolveProfile("default-625");
  assert.equal(plain.flowMegabitsPerSecond, null);
  assert.equal(plain.payload, false);
  assert.equal(s3RequestBytesPerSecond(plain), 90_000_000);
  // the lower of S3's own cap and the flow cap (payload bytes), either alone, or none
  assert.equal(
    s3ConnectionCapBytesPerSecond({ s3ConnectionBytesPerSecond: 9e7, flowBitsPerSecond: 6e8 }),
    75e6,
  );
  assert.equal(
    s3ConnectionCapBytesPerSecond({ s3ConnectionBytesPerSecond: 5e7, flowBitsPerSecond: 6e8 }),
    5e7,
  );
  assert.equal(
    s3ConnectionCapBytesPerSecond({ s3ConnectionBytesPerSecond: null, flowBitsPerSecond: 6e8 }),
    75e6,
  );
  assert.equal(
    s3ConnectionCapBytesPerSecond({ s3ConnectionBytesPerSecond: null, flowBitsPerSecond: null }),
    null,
  );
  // a flow cap nginx could not pace per connection is refused, naming the field
  const flowOnly = {
    name: "fast-flows",
    download: [{ memoryMb: 128, megabitsPerSecond: 3000 }],
    upload: [{ memoryMb: 128, megabitsPerSecond: 3000 }],
    payload: true,
  };
  assert.match(
    profileProblems({ ...flowOnly, flowMegabitsPerSecond: 2000 }),
    /profiles\.0\.flowMegabitsPerSecond: at most 1677 Mbit\/s without an s3ConnectionBytesPerSecond/,
  );
  const capped = chooseProfile("fast-flows", [
    labProfileSchema.parse({ ...flowOnly, flowMegabitsPerSecond: 2000, s3ConnectionBytesPerSecond: 9e7 }),
  ]);
  assert.equal(s3RequestBytesPerSecond(capped.profile), 9e7);
  assert.equal(capped.s3RequestBytesPerSecond, 9e7, "derived once, with the profile");
  assert.equal(capped.flowCapBitsPerSecond, flowCapBitsPerSecond(capped.profile));
  const tokyo = resolveProfile("seed-tokyo-2026");
  for (const memoryMb of [1024, 10_240])
    assert.equal(directionShape(tokyo, "upload", memoryMb).rateBitsPerSecond, Math.round(625e6 * factor));
  assert.match(
    profileProblems({
      name: "b",
      download: [{ memoryMb: 128, megabitsPerSecond: 1 }],
      upload: [{ memoryMb: 128, megabitsPerSecond: 1 }],
      burst: { peakMegabitsPerSecond: 9, seconds: 1, bytes: 5 },
    }),
    /profiles\.0\.burst: give exactly one of seconds or bytes/,
  );
});

test("the per-flow pacer holds a stream to its cap, without catch-up after a stall", () => {
  const pacer = new FlowPacer(80e6, 0); // 10 MB/s = 10,000 bytes per ms; 1 MiB bucket
  assert.equal(pacer.take(1_048_576, 0), 0);
  assert.equal(pacer.take(100_000, 0), 10); // 100 KB in debt = 10 ms
  assert.equal(pacer.waitMs(5), 5);
  // a long stall refills only the bucket's depth, never the time stalled
  assert.equal(pacer.take(1_048_576, 10_000), 0);
  assert.ok(pacer.take(1, 10_000) > 0);
});

test("a per-flow cap fixes the cloud side's receive buffers at twice the pacer's bucket plus the round trip; none leaves the host's", () => {
  // seed-oregon at 1/8: 75 Mbit/s a flow, the bucket's 1 MiB floor, no round trip
  assert.equal(cappedReceiveBufferBytes(75e6, 0), 2 * 1_048_576);
  // 600 Mbit/s over 20 ms: a 7.5 MB bucket (100 ms) and 1.5 MB in flight, twice
  assert.equal(cappedReceiveBufferBytes(600e6, 20), 18_000_000);
  // default and maximum alike, so no buffer grows past what the link may run ahead of the reads
  assert.equal(cloudTcpRmem(75e6, 0, "4096\t131072\t33554432\n"), "4096 2097152 2097152");
  assert.equal(cloudTcpRmem(null, 0, "4096\t131072\t33554432\n"), "4096 131072 33554432");
});

test("a round trip: netem at the root (half the delay, loss, a delay line for the rate), tbf under it with a queue of rate x RTT", () => {
  const shape = directionShape(resolveProfile("default-625"), "download", 1024);
  const [netem, tbf] = shapingCommands("lnblab0", shape, { oneWayMs: 10, lossPercent: 0.5 });
  assert.deepEqual(netem?.slice(0, 7), ["qdisc", "add", "dev", "lnblab0", "root", "handle", "1:"]);
  // 2.8 Gbit/s peak x 10 ms x 2 = 7 MB = 4,667 packets of 1,500 bytes
  assert.deepEqual(netem?.slice(7), ["netem", "delay", "10000us", "limit", "4667", "loss", "random", "0.5%"]);
  assert.deepEqual(tbf?.slice(0, 9), [
    "qdisc",
    "add",
    "dev",
    "lnblab0",
    "parent",
    "1:1",
    "handle",
    "10:",
    "tbf",
  ]);
  // queue: the peak rate x the 20 ms round trip (7 MB), rate and burst unchanged
  assert.deepEqual(tbf?.slice(9), [
    "rate",
    "625000000bit",
    "burst",
    "271875000",
    "peakrate",
    "2800000000bit",
    "mtu",
    `${peakBucketBytes(2800e6)}`,
    "limit",
    "7000000",
  ]);
  // a 100 Mbit/s link with a 200 ms round trip: the queue grows with the round trip
  const slow = directionShape(
    resolveProfile("slow", [
      labProfileSchema.parse({
        name: "slow",
        download: [{ memoryMb: 128, megabitsPerSecond: 100 }],
        upload: [{ memoryMb: 128, megabitsPerSecond: 100 }],
      }),
    ]),
    "upload",
    1024,
  );
  assert.equal(tbfArguments(slow, 200).at(-1), `${Math.round((100e6 * 0.2) / 8)}`);
  assert.equal(tbfArguments(slow).at(-1), "1048576");
  // no round trip and no loss: the tbf alone at the root, as before
  const plain = shapingCommands("lnblab0", shape, null);
  assert.equal(plain.length, 1);
  assert.deepEqual(plain[0]?.slice(4, 8), ["root", "handle", "1:", "tbf"]);
  assert.equal(shapingCommands("lnblab0", shape, { oneWayMs: 0, lossPercent: 0 }).length, 1);
});

test("kernel probe: each piece is named with tc's or ip's own message", () => {
  const probe = parseKernelProbe("veth 0 \ntbf 0 \nnetem 2 Error: Specified qdisc kind is unknown. \n");
  assert.equal(probe.veth, null);
  assert.equal(probe.tbf, null);
  assert.equal(probe.netem, "Error: Specified qdisc kind is unknown.");
  // a probe cut short says so: a piece it did not reach is not reported missing
  assert.equal(parseKernelProbe("veth 0 \n").tbf, NOT_CHECKED);
});

test("a per-flow cap: sch_fq maxrate as the inner qdisc of the tbf, where shapingCommands put it", () => {
  // tbf at the root (handle 1:): fq is the child of its class 1:1
  assert.deepEqual(fqFlowCapCommand("lnblab0", 627_348_066, null), [
    "qdisc",
    "replace",
    "dev",
    "lnblab0",
    "parent",
    "1:1",
    "handle",
    "20:",
    "fq",
    "maxrate",
    "627348066bit",
  ]);
  assert.equal(fqFlowCapCommand("lnblab0", 6e8, { oneWayMs: 0, lossPercent: 0 })[5], "1:1");
  // netem at the root, tbf its child (handle 10:): fq goes under the tbf's class 10:1
  assert.equal(fqFlowCapCommand("lnblab0", 6e8, { oneWayMs: 10, lossPercent: 0 })[5], "10:1");
  const shape = directionShape(resolveProfile("default-625"), "download", 1024);
  const [, tbf] = shapingCommands("lnblab0", shape, { oneWayMs: 10, lossPercent: 0 });
  assert.equal(tbf?.[7], "10:");
  // the peak bucket holds 1 ms at the peak, at least one 64 KiB GSO packet
  assert.equal(peakBucketBytes(4e9), 500_000);
  assert.equal(peakBucketBytes(1e8), 65_536);
});

test("the S3 cap is paced in sends of whole milliseconds at the cap, so nginx's rounded-down wait cannot let it run over", () => {
  // 90 MB/s: 10 ms is 900,000 bytes; nginx waits 900,000 * 1000 / 90,000,000 = 10 ms, exactly
  assert.equal(cappedSendBytes(90_000_000), 900_000);
  // a cap that does not divide: rounded up, so the wait (rounded down by nginx) is still 10 ms
  const bytes = cappedSendBytes(33_333_333);
  assert.equal(bytes, 333_334);
  assert.equal(Math.floor((bytes * 1000) / 33_333_333), CAPPED_SEND_MS);
  assert.ok(cappedSendBytes(MAX_PACED_CONNECTION_BYTES_PER_SECOND) <= GET_BUSY_BUFFER_BYTES);
  assert.throws(
    () => cappedSendBytes(MAX_PACED_CONNECTION_BYTES_PER_SECOND + 1),
    /above what the lab can pace/,
  );
  assert.deepEqual(connectionCapDirectives(null), {
    limitRate: "limit_rate 0;",
    sendChunk: "sendfile_max_chunk 2097152;",
  });
  assert.deepEqual(connectionCapDirectives(90_000_000), {
    limitRate: "limit_rate 90000000;",
    sendChunk: "sendfile_max_chunk 900000;",
  });
});
