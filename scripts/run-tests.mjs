// Runs every test/**/*.test.ts with node's built-in runner (TypeScript through tsx).
// Files run one at a time: many tests create network namespaces and measure throughput,
// and on a 2-core machine parallel files would disturb each other's timing.
// No single test may run past 15 minutes: a hang fails loudly instead of stalling CI.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findTests(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const filter = process.argv.slice(2);
const files = findTests("test")
  .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    "--test-concurrency=1",
    "--test-timeout=900000",
    "--test-reporter=spec",
    ...files,
  ],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
