// The test files a change touches (`npm run test:changed`, docs/testing.md): the changed test
// files themselves, and every test file that imports a changed file, directly or through other
// files. Plain JavaScript so the test runner needs nothing compiled; test/changed-tests.test.ts
// checks the graph on files it writes in memory.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** Where imports are followed: the code a test can reach. */
const SOURCE_DIRS = ["src", "test", "scripts", "bench"];
const SOURCE_FILE = /\.(ts|mts|mjs|js)$/;

/**
 * Relative specifiers a file depends on when it runs: static and dynamic imports, `export ...
 * from`, and `new URL("./x.ts", import.meta.url)` (a script a test runs in a child process).
 * `import type` is left out: erased when the test runs (`npm run typecheck` covers types).
 */
export function relativeSpecifiers(text) {
  const found = [];
  const patterns = [
    /\b(?:import|export)\s+(?!type\s)[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/g,
    /\bimport\s*["'](\.{1,2}\/[^"']+)["']/g,
    /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g,
    /\bnew URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]);
  return found;
}

/** The file a specifier of `from` names, among `known` paths: TypeScript's `.js` for `.ts` too. */
export function resolveSpecifier(from, specifier, known) {
  const base = normalize(join(dirname(from), specifier)).replaceAll("\\", "/");
  const candidates = [base, base.replace(/\.js$/, ".ts"), base.replace(/\.mjs$/, ".mts"), `${base}.ts`];
  return candidates.find((candidate) => known.has(candidate)) ?? null;
}

/**
 * The test files (among `testFiles`) that are changed or reach a changed file through
 * imports. `sources` maps each repository path to its text.
 */
export function testsAffectedBy(changed, sources, testFiles) {
  const known = new Set(sources.keys());
  const importers = new Map();
  for (const [file, text] of sources) {
    for (const specifier of relativeSpecifiers(text)) {
      const target = resolveSpecifier(file, specifier, known);
      if (target === null) continue;
      if (!importers.has(target)) importers.set(target, new Set());
      importers.get(target).add(file);
    }
  }
  const reached = new Set(changed);
  const queue = [...changed];
  while (queue.length > 0) {
    const file = queue.pop();
    for (const importer of importers.get(file) ?? []) {
      if (reached.has(importer)) continue;
      reached.add(importer);
      queue.push(importer);
    }
  }
  return testFiles.filter((file) => reached.has(file));
}

function sourceFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return SOURCE_FILE.test(entry.name) ? [path] : [];
  });
}

function git(args) {
  return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * What the change touches: committed on this branch since it left `base` (default main), plus
 * what is modified, staged or untracked in the work tree. On main itself: the work tree's changes.
 */
export function changedFiles(base = "main") {
  let since;
  try {
    since = git(["merge-base", base, "HEAD"]).trim();
  } catch {
    since = "HEAD";
  }
  const lines = (text) => text.split("\n").filter((line) => line !== "");
  const diffed = lines(git(["diff", "--name-only", since]));
  const untracked = lines(git(["ls-files", "--others", "--exclude-standard"]));
  return [...new Set([...diffed, ...untracked])].sort();
}

/** The repository's sources, read from disk (the work tree as it is now). */
export function readSources() {
  const sources = new Map();
  for (const file of SOURCE_DIRS.flatMap(sourceFiles)) sources.set(file, readFileSync(file, "utf8"));
  return sources;
}
