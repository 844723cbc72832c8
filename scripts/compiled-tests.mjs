// The tests as plain JavaScript, for scripts/run-tests.mjs: src/ and test/ are copied into a
// mirror of the checkout (.test-build/run-PID/) with each .ts file's JavaScript beside it (esbuild,
// the transform tsx itself uses), and every other top-level entry (dist, bin, schema,
// node_modules, package.json, ...) linked. A test process then loads plain modules without tsx's
// loader, which costs about 1 CPU-s a process however warm its cache (2026-12-06: 2.3 -> 1.2
// CPU-s for a small unit file, 4.9 -> 3.3 for a larger one), over 160 files a run, most of them
// at nice 19 beside a busy loop. Paths a test builds from import.meta.url land in the mirror,
// where the same files are; paths from the working directory stay in the checkout. The mirror is
// made afresh for each run, so it never holds an edit older than the sources.
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { transform } from "esbuild";

export const MIRROR_PARENT = ".test-build";
/** The folders compiled into the mirror; every other top-level entry is linked. */
const COMPILED = ["src", "test"];
const NOT_LINKED = new Set([".git", MIRROR_PARENT, ...COMPILED]);

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** Mirrors left by runs whose process is gone (a killed run cannot remove its own). */
function removeStaleMirrors(root) {
  let names = [];
  try {
    names = readdirSync(join(root, MIRROR_PARENT));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(join(root, MIRROR_PARENT, name), { recursive: true, force: true });
    }
  }
}

async function compileFile(root, mirror, file) {
  const target = join(mirror, file);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(root, file), target);
  if (!file.endsWith(".ts") || file.endsWith(".d.ts")) return;
  const output = join(mirror, file.replace(/\.ts$/, ".js"));
  const { code } = await transform(readFileSync(join(root, file), "utf8"), {
    loader: "ts",
    format: "esm",
    // import attributes (`with { type: "json" }`) are kept from Node 20.10
    target: `node${process.versions.node}`,
    // stack traces (with --enable-source-maps) name the checkout's .ts file and line
    sourcemap: "inline",
    sourcesContent: false,
    sourcefile: relative(dirname(output), join(root, file)),
  });
  writeFileSync(output, code);
}

/** Builds this run's mirror of `root`; returns its directory and a function that removes it. */
export async function compileTests(root = process.cwd()) {
  removeStaleMirrors(root);
  const mirror = join(root, MIRROR_PARENT, `run-${process.pid}`);
  rmSync(mirror, { recursive: true, force: true });
  mkdirSync(mirror, { recursive: true });
  const files = COMPILED.flatMap((dir) => filesUnder(join(root, dir))).map((path) => relative(root, path));
  await Promise.all(files.map((file) => compileFile(root, mirror, file)));
  for (const entry of readdirSync(root)) {
    if (!NOT_LINKED.has(entry)) symlinkSync(join(root, entry), join(mirror, entry));
  }
  return { mirror, remove: () => rmSync(mirror, { recursive: true, force: true }) };
}

/** A test file's path in the mirror (test/x.test.ts -> .test-build/run-N/test/x.test.js). */
export function compiledPath(mirror, file) {
  return join(relative(process.cwd(), mirror), file.replace(/\.ts$/, ".js"));
}

/** A path or location in the mirror written as the checkout's source file (for failures and times). */
export function sourcePath(text) {
  return text.replace(
    new RegExp(`(?:[^\\s'"(]*/)?${MIRROR_PARENT.replace(".", "\\.")}/run-\\d+/([^\\s:'")]+)\\.js`, "g"),
    "$1.ts",
  );
}
