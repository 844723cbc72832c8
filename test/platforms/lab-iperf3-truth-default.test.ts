import { testProbeAgainstStock, useTruthLab } from "./iperf3-truth.js";

/** The light truth case (625 Mbit/s), which may measure beside another light file: see iperf3-truth.ts. */
testProbeAgainstStock(useTruthLab(), "default-625", 1024);
