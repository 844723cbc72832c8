import type { RunManifest } from "../../src/results/manifest.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { fixtureFailure, fixtureManifest, fixtureRecord } from "./fixture-run.js";

/**
 * A fixed study-like run: two lab targets, iperf3 and s3-get over six memory sizes, three
 * repetitions, one failure. Sustained rates follow the lab profiles (625 flat; 625 -> 3,000 from
 * 2 GB) with a deterministic +-5% spread; each 4 s record starts with a 1 s burst at 2,800 Mbit/s
 * where that is above its sustained rate, and its effective (whole-transfer) rate includes it:
 * (4 x 2,800 + 12 x sustained) / 16. iperf3 records carry sent/received (received 1% lower) and
 * s3-get records a whole-download time 0.5 s longer than the transfer (schemaVersion-2 fields).
 */
export function fixtureStudy(): { manifest: RunManifest; records: ResultRecord[] } {
  const manifest = fixtureManifest(
    {
      name: "fixture-study",
      targets: [
        { platform: "local", profile: "default-625" },
        { platform: "local", profile: "raised-3000" },
      ],
      memoryMb: [1024, 2048, 3072, 5120, 8192, 10240],
      repetitions: 3,
      probes: [
        { kind: "iperf3", timeSeconds: 4, parallel: 4 },
        { kind: "s3-get", objectMib: 64, concurrency: 4, chunkMib: 8 },
      ],
    },
    { "local:default-625": 625e6, "local:raised-3000": 3_000e6 },
  );
  const spread = [0.95, 1, 1.05];
  const records = manifest.cells.flatMap((cell) => {
    const raised = cell.target.platform === "local" && cell.target.profile === "raised-3000";
    const sustained =
      raised && cell.memoryMb > 2048 ? 625e6 + ((cell.memoryMb - 2048) / (10240 - 2048)) * 2375e6 : 625e6;
    const rate = cell.probe.kind === "s3-get" ? sustained * 0.97 : sustained * 0.99;
    return spread.map((factor, i) => {
      if (cell.memoryMb === 3072 && i === 2 && cell.probe.kind === "iperf3")
        return fixtureFailure(cell, i + 1, "connect-timeout");
      const sustainedRate = rate * factor;
      const burstRate = Math.max(2.8e9, sustainedRate);
      const effective = (4 * burstRate + 12 * sustainedRate) / 16;
      const record = fixtureRecord(cell, i + 1, {
        bitsPerSecond: effective,
        sustainedBitsPerSecond: sustainedRate,
        cpuSeconds: Math.min(cell.memoryMb / 1769, 2) * 4 * 0.3,
        burstFactor: burstRate / sustainedRate,
      });
      const seconds = record.seconds as number;
      return cell.probe.kind === "iperf3"
        ? ({
            ...record,
            schemaVersion: 2,
            sent: { bytes: record.bytes, seconds, bitsPerSecond: effective, retransmits: 3 },
            received: { bytes: (record.bytes as number) * 0.99, seconds, bitsPerSecond: effective * 0.99 },
          } as unknown as ResultRecord)
        : ({ ...record, schemaVersion: 2, wholeSeconds: seconds + 0.5 } as unknown as ResultRecord);
    });
  });
  return { manifest, records };
}
