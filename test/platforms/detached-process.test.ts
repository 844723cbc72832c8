import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { logEnding } from "../../src/platforms/local/detached-process.js";

test("a lab server that exits early: the error quotes the end of its log, which goes with the lab", () => {
  const dir = mkdtempSync(join(tmpdir(), "lnb-log-"));
  try {
    const log = join(dir, "iperf3-5201.log");
    writeFileSync(log, `${"x".repeat(5_000)}\nlisten EADDRINUSE: address already in use 198.18.0.1:5201\n`);
    const ending = logEnding(log);
    assert.match(
      ending,
      /^; its log ends: ".*listen EADDRINUSE: address already in use 198\.18\.0\.1:5201"$/,
    );
    assert.ok(ending.length < 1_600, `at most the log's last 1,500 bytes (${ending.length} characters)`);
    writeFileSync(log, "\n");
    assert.equal(logEnding(log), "", "an empty log adds nothing");
    assert.equal(logEnding(join(dir, "missing.log")), "", "nor does a log that is gone");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
