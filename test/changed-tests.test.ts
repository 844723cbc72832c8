import assert from "node:assert/strict";
import { test } from "node:test";
import { relativeSpecifiers, testsAffectedBy } from "../scripts/changed-tests.mjs";

/** `npm run test:changed`'s choice of test files, on a small repository written here. */
const sources = new Map([
  ["src/a.ts", 'import { b } from "./b.js";\nexport const a = b;\n'],
  ["src/b.ts", "export const b = 1;\n"],
  ["src/c.ts", 'export { b } from "./b.js";\n'],
  ["src/lonely.ts", "export const lonely = 0;\n"],
  ["test/helpers/h.ts", 'import { a } from "../../src/a.js";\nexport const h = a;\n'],
  ["test/a.test.ts", 'import "../src/a.js";\n'],
  [
    "test/h.test.ts",
    'import { h } from "./helpers/h.js";\nimport type { Lonely } from "../src/lonely.js";\n',
  ],
  ["test/c.test.ts", 'const { c } = await import("../src/c.js");\n'],
  ["test/child.test.ts", 'const script = new URL("./helpers/child.ts", import.meta.url);\n'],
  ["test/helpers/child.ts", 'import { lonely } from "../../src/lonely.js";\n'],
  ["test/tiers.test.ts", 'import { loadManifest } from "../scripts/test-tiers.mjs";\n'],
  ["scripts/test-tiers.mjs", 'import { readFileSync } from "node:fs";\n'],
]);
const testFiles = [...sources.keys()].filter((file) => file.endsWith(".test.ts")).sort();

test("a changed module picks every test that reaches it, directly or through others", () => {
  assert.deepEqual(testsAffectedBy(["src/b.ts"], sources, testFiles), [
    "test/a.test.ts",
    "test/c.test.ts",
    "test/h.test.ts",
  ]);
  assert.deepEqual(testsAffectedBy(["src/a.ts"], sources, testFiles), ["test/a.test.ts", "test/h.test.ts"]);
});

test("a script a test starts by URL, a changed test itself and a .mjs import are followed", () => {
  assert.deepEqual(testsAffectedBy(["src/lonely.ts"], sources, testFiles), ["test/child.test.ts"]);
  assert.deepEqual(testsAffectedBy(["test/c.test.ts"], sources, testFiles), ["test/c.test.ts"]);
  assert.deepEqual(testsAffectedBy(["scripts/test-tiers.mjs"], sources, testFiles), ["test/tiers.test.ts"]);
});

test("a change no test reaches picks nothing; types, package names and node: modules are not followed", () => {
  assert.deepEqual(testsAffectedBy(["docs/testing.md", "src/gone.ts"], sources, testFiles), []);
  assert.deepEqual(
    relativeSpecifiers(
      'import x from "zod";\nimport { y } from "node:fs";\nimport type { T } from "./t.js";\nimport z, { type U } from "./z.js";\n',
    ),
    ["./z.js"],
  );
});
