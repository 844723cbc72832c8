// The CLI from source, for tests that run it as a child process. It starts as the published
// binary does (src/cli/entry.ts): only the command it runs is loaded, so a child that checks
// `fit` or `probe` does not load vega, resvg and every AWS SDK client through tsx first
// (~3.4 CPU-s a start with every command loaded, ~1.5 with one, 2026-12-06).
import { main } from "../../src/cli/entry.js";

main(process.argv).catch((error) => {
  console.error(`lambda-netbench: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
