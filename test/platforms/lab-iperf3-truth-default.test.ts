import { scaledProfile } from "../helpers/scaled-profile.js";
import { testProbeAgainstStock, useTruthLab } from "./iperf3-truth.js";

/** The truth case on default-625 at 1/5 of its rates (125 Mbit/s): see iperf3-truth.ts. */
testProbeAgainstStock(useTruthLab(), scaledProfile("default-625", 5), 1024);
