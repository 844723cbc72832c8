// The CLI from source, for tests that run it as a child process.
import { main } from "../../src/cli/main.js";

await main(process.argv);
