import { test } from "node:test";
import { runS3PutProbe } from "../../src/probes/s3/run-s3-put.js";
import { acquireBenchLock } from "../helpers/bench-lock.js";
import { startPacedRelay } from "../helpers/paced-relay.js";
import { putEvent, testDependencies } from "../helpers/s3-events.js";
import { startS3rver } from "../helpers/s3rver-instance.js";
import { assertHonestIntervals, runStalledProbe } from "./support/interval-checks.js";

/**
 * Issue 10 for s3-get: the probe runs in its own process through a relay paced at 100 Mbit/s
 * (s3rver runs in this process, so no namespace); 1.5 s in, its event loop is blocked for
 * 600 ms. Every interval must stay within the link (+15 %) and no near-empty interval may be
 * followed by a catch-up.
 *
 * s3-put is not here: it counts a 1 MiB slice when the socket accepted it, so at tens of Mbit/s
 * its 250 ms intervals hold 0, 1 or 2 slices (measured through this relay: 0/33/67/134 Mbit/s),
 * and a loopback relay (its socket buffers take megabytes at once) is no model of an upload
 * link. Finer slices are a change to the upload data path (multipart-upload.ts).
 */
const LINK_BITS_PER_SECOND = 100e6;
const OBJECT_MIB = 40;

for (const probe of ["s3-get"] as const) {
  test(`${probe} through a ${LINK_BITS_PER_SECOND / 1e6} Mbit/s paced relay, 600 ms blocked event loop: honest intervals`, async () => {
    const lock = await acquireBenchLock(120);
    const server = await startS3rver({ buckets: ["lnb-timing"] });
    try {
      if (probe === "s3-get") {
        await runS3PutProbe(
          putEvent({
            endpoint: server.endpoint,
            bucket: "lnb-timing",
            key: "object",
            sizeMib: OBJECT_MIB,
            partMib: 8,
          }),
          testDependencies,
        );
      }
      const relay = await startPacedRelay({
        upstreamPort: server.port,
        bitsPerSecond: LINK_BITS_PER_SECOND,
        paced: probe === "s3-get" ? "down" : "up",
      });
      try {
        const common = {
          probe,
          endpoint: `http://127.0.0.1:${relay.port}`,
          pathStyle: true,
          region: "us-east-1",
          bucket: "lnb-timing",
          concurrency: 1,
        };
        const event =
          probe === "s3-get"
            ? { ...common, key: "object", chunkMib: 8 }
            : { ...common, key: "uploaded", sizeMib: OBJECT_MIB, partMib: 8 };
        const run = await runStalledProbe([], event, { atMs: 1_500, forMs: 600 });
        assertHonestIntervals(run, LINK_BITS_PER_SECOND, probe, false);
      } finally {
        await relay.close();
      }
    } finally {
      await server.close();
      lock.release();
    }
  });
}
