import type { RunManifest } from "../../src/results/manifest.js";
import type { ResultRecord } from "../../src/results/result-record.js";
import { fixtureFailure, fixtureManifest, fixtureRecord } from "./fixture-run.js";

/**
 * A fixed study-like run: two lab targets, iperf3 and s3-get over six memory sizes, three
 * repetitions, one failure. Rates follow the lab profiles (625 flat; 625 -> 3,000 from 2 GB)
 * with a deterministic +-5% spread, so reports have something to show.
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
    return spread.map((factor, i) =>
      cell.memoryMb === 3072 && i === 2 && cell.probe.kind === "iperf3"
        ? fixtureFailure(cell, i + 1, "connect-timeout")
        : fixtureRecord(cell, i + 1, {
            bitsPerSecond: rate * factor,
            cpuSeconds: Math.min(cell.memoryMb / 1769, 2) * 4 * 0.3,
            burstFactor: 2.8e9 / rate,
          }),
    );
  });
  return { manifest, records };
}
