/**
 * s3-put in the lab: does the lab's upload path keep up with the link?
 *
 * A private lab on raised-3000 with the stock iperf3 server, one environment. Per run,
 * alternating, at 10,240 MB (3,000 Mbit/s upload, 2 cores): the stock iperf3 client's upload
 * (-P 4 -t 8 -O 1, sender side: the link's ceiling), our s3-put probe run by the agent (1 GiB,
 * 64 MiB parts, 8 at once), boto3 upload_fileobj (Debian's python3-boto3; concurrency 8, 64 MiB
 * parts) and the AWS SDK v3's Upload (@aws-sdk/lib-storage; queueSize 8, 64 MiB parts), both
 * uploading 1 GiB from memory. Then at 1,024 MB (625 Mbit/s, 0.58 core): iperf3 vs s3-put.
 * CPU per GiB counts the upload only (ours: the probe's cpuSeconds; boto3 and the SDK: process
 * CPU time around the upload, inside the process). Beside the means, the sustained rates of
 * iperf3 and s3-put (results/burst-detection.ts over their interval samples, as a record's
 * headline): at 1,024 MB the link starts with a burst, which a mean over 8 s and one over a
 * 13 s upload contain in different shares.
 *
 * Run: npm run bench -- s3-put (root; LNB_BENCH_RUNS=3 by default). Takes the bench lock.
 */
import os from "node:os";
import { removeLab } from "../src/platforms/local/cleanup.js";
import { privateLabName } from "../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../src/platforms/local/local-platform.js";
import type { IntervalSamples } from "../src/probes/interval-sampler.js";
import { detectBurst } from "../src/results/burst-detection.js";
import { acquireBenchLock } from "../test/helpers/bench-lock.js";
import { ensureBuilt, median } from "../test/platforms/lab-helpers.js";

const RUNS = Number(process.env.LNB_BENCH_RUNS ?? 3);
const GIB = 1_073_741_824;
const PART_MIB = 64;
const CONCURRENCY = 8;
const DEBIAN_PYTHON = "/usr/bin/python3";
const arch = process.arch === "x64" ? "x86_64" : "arm64";

interface Measurement {
  bitsPerSecond: number;
  cpuSecondsPerGib: number | null;
  /** From the interval samples; null where there are none (boto3, the SDK) or none settled. */
  sustainedBitsPerSecond: number | null;
}

interface Iperf3Interval {
  sum: { start: number; seconds: number; bytes: number };
}

/** iperf3 -J's intervals (the omitted ones too: they hold the burst) as the probes' samples. */
function iperf3Samples(intervals: Iperf3Interval[]): IntervalSamples {
  return {
    intervalSeconds: 1,
    startSeconds: intervals.map((i) => i.sum.start),
    durationSeconds: intervals.map((i) => i.sum.seconds),
    bytes: intervals.map((i) => i.sum.bytes),
  };
}

ensureBuilt();
const lock = await acquireBenchLock(3_600);
const labName = privateLabName();
const platform = await LocalPlatform.open({
  profile: "raised-3000",
  labName,
  environments: 1,
  mode: "shaped",
  iperf3Server: "stock",
});
try {
  await platform.prepare([{ memoryMb: 10_240, arch }]);
  const s3 = platform.endpoints().s3;
  const endpoint = s3?.endpoint ?? "";
  const bucket = s3?.bucket ?? "";
  const ca = platform.lab.s3.caFile;

  const iperf3 = async (memoryMb: number): Promise<Measurement> => {
    const host = platform.endpoints().iperf3?.host ?? "";
    const port = `${platform.endpoints().iperf3?.ports[0]}`;
    const run = await platform.execInEnvironment(memoryMb, "iperf3", [
      "-c",
      host,
      "-p",
      port,
      "-P",
      "4",
      "-t",
      "8",
      "-O",
      "1",
      "-J",
    ]);
    if (run.exitCode !== 0) throw new Error(`iperf3: ${run.stderr || run.stdout}`);
    const json = JSON.parse(run.stdout) as {
      end: { sum_sent: { bits_per_second: number } };
      intervals: Iperf3Interval[];
    };
    return {
      bitsPerSecond: json.end.sum_sent.bits_per_second,
      cpuSecondsPerGib: null,
      sustainedBitsPerSecond: detectBurst(iperf3Samples(json.intervals)).sustainedBitsPerSecond,
    };
  };
  const s3Put = async (memoryMb: number): Promise<Measurement> => {
    const outcome = await platform.invoke(
      { memoryMb, arch },
      {
        probe: "s3-put",
        endpoint,
        bucket,
        key: "bench/s3-put",
        pathStyle: true,
        caPem: s3?.caPem,
        sizeMib: GIB / 1_048_576,
        partMib: PART_MIB,
        concurrency: CONCURRENCY,
      },
    );
    if (!outcome.response?.ok)
      throw new Error(`s3-put: ${JSON.stringify(outcome.failure ?? outcome.response)}`);
    const detail = outcome.response.detail as {
      bitsPerSecond: number;
      cpuSecondsPerGib: number;
      samples: IntervalSamples;
    };
    return {
      bitsPerSecond: detail.bitsPerSecond,
      cpuSecondsPerGib: detail.cpuSecondsPerGib,
      sustainedBitsPerSecond: detectBurst(detail.samples).sustainedBitsPerSecond,
    };
  };
  const client = async (memoryMb: number, file: string, args: string[]): Promise<Measurement> => {
    const run = await platform.execInEnvironment(memoryMb, file, args, 600);
    if (run.exitCode !== 0) throw new Error(`${args[0]}: ${run.stderr}`);
    const result = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as {
      bytes: number;
      seconds: number;
      cpuSeconds: number;
    };
    if (result.bytes !== GIB) throw new Error(`${args[0]} uploaded ${result.bytes} bytes`);
    return {
      bitsPerSecond: (GIB * 8) / result.seconds,
      cpuSecondsPerGib: result.cpuSeconds,
      sustainedBitsPerSecond: null,
    };
  };
  const clientArgs = (key: string) => [endpoint, ca, bucket, key, `${GIB}`, `${CONCURRENCY}`, `${PART_MIB}`];
  const cases: Array<{ name: string; memoryMb: number; run: (memoryMb: number) => Promise<Measurement> }> = [
    { name: "iperf3 -P 4 upload (ceiling)", memoryMb: 10_240, run: iperf3 },
    { name: "lambda-netbench s3-put", memoryMb: 10_240, run: s3Put },
    {
      name: "boto3 upload_fileobj",
      memoryMb: 10_240,
      run: (m) => client(m, DEBIAN_PYTHON, ["bench/s3-put/boto3-upload.py", ...clientArgs("bench/boto3")]),
    },
    {
      name: "AWS SDK v3 lib-storage Upload",
      memoryMb: 10_240,
      run: (m) => client(m, process.execPath, ["bench/s3-put/sdk-upload.mjs", ...clientArgs("bench/sdk")]),
    },
    { name: "iperf3 -P 4 upload (ceiling)", memoryMb: 1_024, run: iperf3 },
    { name: "lambda-netbench s3-put", memoryMb: 1_024, run: s3Put },
  ];
  const results = new Map<number, Measurement[]>(cases.map((_, i) => [i, []]));
  for (let run = 0; run < RUNS; run += 1) {
    for (const [index, c] of cases.entries()) {
      const measured = await c.run(c.memoryMb);
      results.get(index)?.push(measured);
      console.error(
        `run ${run + 1}: ${c.name} @${c.memoryMb} MB: ${(measured.bitsPerSecond / 1e6).toFixed(0)} Mbit/s` +
          (measured.sustainedBitsPerSecond === null
            ? ""
            : ` (sustained ${(measured.sustainedBitsPerSecond / 1e6).toFixed(0)})`) +
          (measured.cpuSecondsPerGib === null ? "" : `, ${measured.cpuSecondsPerGib.toFixed(2)} CPU s/GiB`),
      );
    }
  }
  console.log(
    `\ns3-put benchmark: ${os.cpus()[0]?.model ?? "?"} x${os.availableParallelism()}, kernel ${os.release()}, node ${process.version}, ${new Date().toISOString()}, load ${os.loadavg()[0]?.toFixed(1)}, runs ${RUNS}, lock ${lock.locked ? "held" : "NOT held"}`,
  );
  console.log(
    "| memory MB | client | runs: Mbit/s | median Mbit/s | x iperf3 | runs: sustained Mbit/s | median sustained | x iperf3 sustained | median CPU s/GiB |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  const ceiling = new Map<number, { mean: number; sustained: number }>();
  const fmt = (values: number[]) => (values.length ? values.map((v) => v.toFixed(0)).join(", ") : "-");
  for (const [index, c] of cases.entries()) {
    const values = results.get(index) ?? [];
    const mbps = values.map((v) => v.bitsPerSecond / 1e6);
    const sustained = values.flatMap((v) =>
      v.sustainedBitsPerSecond === null ? [] : [v.sustainedBitsPerSecond / 1e6],
    );
    // a median of some runs only would not be like for like: all runs or none
    const sustainedMedian = sustained.length === values.length ? median(sustained) : Number.NaN;
    if (c.name.startsWith("iperf3"))
      ceiling.set(c.memoryMb, { mean: median(mbps), sustained: sustainedMedian });
    const peak = ceiling.get(c.memoryMb);
    const cpu = values.flatMap((v) => (v.cpuSecondsPerGib === null ? [] : [v.cpuSecondsPerGib]));
    console.log(
      `| ${c.memoryMb} | ${c.name} | ${fmt(mbps)} | ${median(mbps).toFixed(0)} | ${(median(mbps) / (peak?.mean ?? Number.NaN)).toFixed(3)} | ${fmt(sustained)} | ${Number.isNaN(sustainedMedian) ? "-" : sustainedMedian.toFixed(0)} | ${Number.isNaN(sustainedMedian) ? "-" : (sustainedMedian / (peak?.sustained ?? Number.NaN)).toFixed(3)} | ${cpu.length ? median(cpu).toFixed(2) : "-"} |`,
    );
  }
} finally {
  await platform.dispose();
  await removeLab(labName);
  lock.release();
}
