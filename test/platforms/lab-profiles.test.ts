import assert from "node:assert/strict";
import { test } from "node:test";
import { NOT_CHECKED, parseKernelProbe } from "../../src/platforms/local/capabilities.js";
import {
  cloudVethName,
  environmentLinkAddresses,
  labOfNamespace,
  labOwnerPid,
  privateLabName,
} from "../../src/platforms/local/lab-names.js";
import {
  builtInProfileNames,
  directionShape,
  environmentShape,
  interpolateMegabitsPerSecond,
  resolveProfile,
} from "../../src/platforms/local/profiles.js";
import {
  CAPPED_SEND_MS,
  cappedSendBytes,
  connectionCapDirectives,
  GET_BUSY_BUFFER_BYTES,
  MAX_PACED_CONNECTION_BYTES_PER_SECOND,
} from "../../src/platforms/local/s3-connection-cap.js";
import { shapingCommands, tbfArguments } from "../../src/platforms/local/shaping.js";

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
    /memoryMb: 64 is not allowed \(allowed: integers 128-10240\)/,
  );
});

test("custom profiles are validated with the field named, and may not shadow a built-in one", () => {
  const custom = {
    name: "my-lab",
    download: [
      { memoryMb: 128, megabitsPerSecond: 100 },
      { memoryMb: 4096, megabitsPerSecond: 1000 },
    ],
    upload: [{ memoryMb: 128, megabitsPerSecond: 50 }],
  };
  const profile = resolveProfile("my-lab", [custom]);
  assert.equal(interpolateMegabitsPerSecond(profile.download, 2112), 550);
  assert.equal(interpolateMegabitsPerSecond(profile.upload, 10_240), 50);
  assert.equal(profile.burst, null);
  assert.throws(
    () =>
      resolveProfile("bad", [
        { ...custom, name: "bad", download: [{ memoryMb: 128, megabitsPerSecond: -1 }] },
      ]),
    /profiles\[0\]\.download\.0\.megabitsPerSecond/,
  );
  assert.throws(
    () =>
      resolveProfile("bad", [
        {
          ...custom,
          name: "bad",
          upload: [
            { memoryMb: 2048, megabitsPerSecond: 1 },
            { memoryMb: 1024, megabitsPerSecond: 2 },
          ],
        },
      ]),
    /sorted by memoryMb/,
  );
  assert.throws(() => resolveProfile("default-625", [{ ...custom, name: "default-625" }]), /built-in/);
  assert.throws(
    () => resolveProfile("bad", [{ ...custom, name: "bad", s3ConnectionBytesPerSecond: 300_000_000 }]),
    /profiles\[0\]\.s3ConnectionBytesPerSecond: at most 209715200 bytes\/s/,
  );
  assert.throws(
    () => resolveProfile("nope"),
    /unknown lab profile "nope" \(allowed: default-625, raised-3000\)/,
  );
  assert.deepEqual(builtInProfileNames(), ["default-625", "raised-3000"]);
});

test("tbf arguments: peakrate needs an mtu covering a 64 KiB GSO packet", () => {
  const args = tbfArguments(directionShape(resolveProfile("default-625"), "download", 1024));
  assert.deepEqual(args.slice(0, 5), ["tbf", "rate", "625000000bit", "burst", "271875000"]);
  assert.deepEqual(args.slice(5, 9), ["peakrate", "2800000000bit", "mtu", "65536"]);
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
    "65536",
    "limit",
    "7000000",
  ]);
  // a 100 Mbit/s link with a 200 ms round trip: the queue grows with the round trip
  const slow = directionShape(
    resolveProfile("slow", [
      {
        name: "slow",
        download: [{ memoryMb: 128, megabitsPerSecond: 100 }],
        upload: [{ memoryMb: 128, megabitsPerSecond: 100 }],
      },
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
