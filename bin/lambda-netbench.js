#!/usr/bin/env node
// Entry point of the published CLI: the compiled code lives in dist/ (npm run build).
import { main } from "../dist/cli/entry.js";

main(process.argv).catch((error) => {
  console.error(`lambda-netbench: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
