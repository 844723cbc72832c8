/**
 * `npm run bench [-- NAME...]`: runs bench/*.bench.ts one after another (all, or those whose
 * file name contains one of the NAMEs). Each benchmark prints its own table; results worth
 * keeping go to docs/BENCHMARKS.md with the command, the machine and the date.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const filters = process.argv.slice(2);
const benches = readdirSync("bench")
  .filter((name) => name.endsWith(".bench.ts"))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();
if (benches.length === 0) {
  console.error(`no benchmark matches ${filters.join(", ") || "(all)"}`);
  process.exit(1);
}
let failed = 0;
for (const bench of benches) {
  console.log(`\n=== ${bench} ===`);
  const result = spawnSync(process.execPath, ["--import", "tsx", join("bench", bench)], { stdio: "inherit" });
  if (result.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
