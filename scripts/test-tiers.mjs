// Which tier each test file belongs to, read from test/tiers.json (docs/testing.md). Plain
// JavaScript so the test runner needs nothing compiled; test/tiers.test.ts checks the manifest.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** In the order `npm test` runs them: fastest first, so a broken unit fails within minutes. */
export const TIER_NAMES = ["unit", "integration", "lab", "e2e", "vm"];

export const MANIFEST = "test/tiers.json";

/** Every test file under `dir`, sorted, with forward slashes. */
export function findTestFiles(dir = "test") {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return findTestFiles(path);
      return entry.name.endsWith(".test.ts") ? [path] : [];
    })
    .sort();
}

/** The manifest as written: tier name (or "alone") -> file paths and folder prefixes ending in "/". */
export function loadManifest(path = MANIFEST) {
  const { $comment, ...lists } = JSON.parse(readFileSync(path, "utf8"));
  return lists;
}

function matches(entry, file) {
  return entry.endsWith("/") ? file.startsWith(entry) : file === entry;
}

/** The tier of one file: the tier whose list names it (or its folder); unit when none does. */
export function tierOf(file, manifest) {
  for (const tier of TIER_NAMES) {
    if ((manifest[tier] ?? []).some((entry) => matches(entry, file))) return tier;
  }
  return "unit";
}

/** The lists that mark a file timing-sensitive (it measures), beside the tier lists. */
export const TIMING_NAMES = ["alone", "paired", "quiet", "emulated", "background"];

/**
 * How a timing-sensitive file shares the machine: "quiet" (nothing else runs: it measures after
 * both lanes are done), "alone" (no other measuring file beside it; the shared lane runs on at low
 * priority), "paired" (it needs little CPU: one other paired file may measure beside it),
 * "emulated" (a software-emulated machine whose checks are shapes at rates it carries even when
 * starved: its own lane, beside the others from the start), "background" (long and light, a plan's
 * transfers at scaled rates that mostly wait: its own lane from the start at nice 19), or null
 * (it does not measure: it runs in the shared lane at low priority).
 */
export function timingOf(file, manifest) {
  return TIMING_NAMES.find((list) => (manifest[list] ?? []).some((entry) => matches(entry, file))) ?? null;
}

/** True for a timing-sensitive file that must have the machine to itself. */
export function runsAlone(file, manifest) {
  return timingOf(file, manifest) === "alone";
}

/** Problems with the manifest: unknown lists, entries naming nothing, files listed in two tiers. */
export function manifestProblems(manifest, files) {
  const problems = [];
  for (const [list, entries] of Object.entries(manifest)) {
    if (!TIMING_NAMES.includes(list) && !TIER_NAMES.includes(list)) {
      problems.push(
        `${MANIFEST}: "${list}" is not a tier (tiers: ${TIER_NAMES.join(", ")}) or a timing list (${TIMING_NAMES.join(", ")})`,
      );
      continue;
    }
    for (const entry of entries) {
      // a folder entry may name a folder that other branches fill (e.g. test/rehearsal/)
      if (!entry.endsWith("/") && !files.includes(entry))
        problems.push(`${MANIFEST}: "${entry}" in "${list}" is not a test file`);
    }
  }
  for (const file of files) {
    const tiers = TIER_NAMES.filter((tier) => (manifest[tier] ?? []).some((entry) => matches(entry, file)));
    if (tiers.length > 1) problems.push(`${MANIFEST}: ${file} is listed in ${tiers.join(" and ")}`);
    const timings = TIMING_NAMES.filter((list) =>
      (manifest[list] ?? []).some((entry) => matches(entry, file)),
    );
    if (timings.length > 1) problems.push(`${MANIFEST}: ${file} is listed in ${timings.join(" and ")}`);
  }
  return problems;
}
