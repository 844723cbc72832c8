// Runs the CLI from source (tsx), so CLI tests need no build.
import { main } from "../../src/cli/main.js";

await main(process.argv);
