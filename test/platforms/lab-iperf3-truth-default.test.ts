import { resolveProfile } from "../../src/platforms/local/profiles.js";
import { scaledProfile } from "../helpers/scaled-profile.js";
import { testProbeAgainstStock, useTruthLab } from "./iperf3-truth.js";

/**
 * The truth case on default-625's curve at 1/5 of its rates (125 Mbit/s) and 1,024 MB's CPU
 * share: see iperf3-truth.ts. Without its burst: what is compared is the shaped sustained rate,
 * and how long a bucket lasts depends on how fast each client can send at the start. Beside a
 * busy loop our agent at 0.58 vCPU drained the 1/5 bucket more slowly than the C client, so its
 * burst outlasted the 2 s omitted and its 3 s read 120-124 Mbit/s against stock's 119.5 (1.030,
 * 2026-12-07). The burst itself is measured in test/e2e/bucket-on-lab.test.ts.
 */
const sustainedOnly = {
  ...resolveProfile("default-625"),
  name: "default-625-sustained",
  description: "default-625's sustained curve, without its burst",
  burst: null,
};
testProbeAgainstStock(useTruthLab(), scaledProfile(sustainedOnly, 5), 1024);
