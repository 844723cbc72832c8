import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  findTestFiles,
  loadManifest,
  manifestProblems,
  runsAlone,
  TIER_NAMES,
  TIMING_NAMES,
  tierOf,
  timingOf,
} from "../scripts/test-tiers.mjs";

/** test/tiers.json names real files, each in one tier, and timing-sensitive files are marked so. */
const manifest = loadManifest();
const files = findTestFiles();

test("the tier manifest names only test files and tiers, and no file twice", () => {
  assert.deepEqual(manifestProblems(manifest, files), []);
});

test("a file that takes the bench lock is listed timing-sensitive (alone, paired, quiet, emulated or background)", () => {
  const locking = files.filter(
    (file) =>
      timingOf(file, manifest) === null &&
      /import [^;]*(bench-lock|withBenchLock|measured-run)/.test(readFileSync(file, "utf8")),
  );
  assert.deepEqual(
    locking,
    [],
    'list these under "alone", "paired", "quiet", "emulated" or "background" in test/tiers.json',
  );
});

test("the manifest's rules: a folder entry takes its files, an unlisted file is unit", () => {
  const rules = {
    e2e: ["test/e2e/"],
    integration: ["test/a.test.ts"],
    alone: ["test/a.test.ts"],
    paired: ["test/e2e/"],
  };
  assert.equal(tierOf("test/e2e/x.test.ts", rules), "e2e");
  assert.equal(tierOf("test/a.test.ts", rules), "integration");
  assert.equal(tierOf("test/b.test.ts", rules), "unit");
  assert.equal(runsAlone("test/a.test.ts", rules), true);
  assert.equal(timingOf("test/e2e/x.test.ts", rules), "paired");
  assert.equal(timingOf("test/b.test.ts", rules), null);
  assert.deepEqual(manifestProblems({ ...rules, fast: [] } as never, ["test/a.test.ts"]), [
    `test/tiers.json: "fast" is not a tier (tiers: ${TIER_NAMES.join(", ")}) or a timing list (${TIMING_NAMES.join(", ")})`,
  ]);
  assert.deepEqual(
    manifestProblems({ alone: ["test/a.test.ts"], paired: ["test/a.test.ts"] }, ["test/a.test.ts"]),
    ["test/tiers.json: test/a.test.ts is listed in alone and paired"],
  );
  assert.deepEqual(manifestProblems({ unit: ["test/gone.test.ts"], lab: ["test/"] }, ["test/a.test.ts"]), [
    'test/tiers.json: "test/gone.test.ts" in "unit" is not a test file',
  ]);
});
