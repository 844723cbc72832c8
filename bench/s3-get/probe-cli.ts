// The real CLI (src/cli/main.ts) run from source, so the benchmark needs no build step.
import { main } from "../../src/cli/main.js";

await main(process.argv);
