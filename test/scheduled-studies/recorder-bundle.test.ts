import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { buildRecorderZip } from "../../src/scheduled-studies/recorder-zip.js";
import { ensureBuilt } from "../platforms/lab-helpers.js";

/**
 * The recorder's bundle needs nothing at run time but Node and the AWS SDK v3 that the
 * nodejs22.x runtime provides, and exports the handler its template names (recorder.handler).
 */
test("the recorder bundle imports only node: modules and @aws-sdk/*, and exports handler", async () => {
  ensureBuilt();
  const source = readFileSync("dist/agent/recorder.mjs", "utf8");
  const specifiers = [...source.matchAll(/^import\s[^"']*["']([^"']+)["']/gm)].map((m) => m[1] as string);
  const bare = specifiers.filter((s) => !s.startsWith("node:") && !s.startsWith("."));
  assert.ok(bare.length > 0);
  assert.deepEqual(
    bare.filter((s) => !s.startsWith("@aws-sdk/")),
    [],
    "only the runtime's SDK",
  );
  const module = (await import(new URL("../../dist/agent/recorder.mjs", import.meta.url).href)) as {
    handler?: unknown;
  };
  assert.equal(typeof module.handler, "function");
  const zip = buildRecorderZip();
  assert.match(zip.key, /^agent\/recorder-[0-9a-f]{64}\.zip$/);
  assert.equal(zip.zip.readUInt32LE(0), 0x04034b50, "a zip");
});
