import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { LossRepairs } from "../../src/probes/retransmits.js";

/** /proc/net/snmp's Tcp lines with `retransSegs`. */
function snmp(retransSegs: number): string {
  return [
    "Ip: Forwarding DefaultTTL",
    "Ip: 1 64",
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors",
    `Tcp: 1 200 120000 -1 10 2 0 0 2 5000 6000 ${retransSegs} 0 0 0`,
    "",
  ].join("\n");
}

test("LossRepairs: repairing while RetransSegs moved less than the quiet time ago, dated at the read that saw it", () => {
  const directory = mkdtempSync(join(tmpdir(), "lnb-loss-repairs-"));
  const path = join(directory, "snmp");
  try {
    writeFileSync(path, snmp(100));
    const repairs = new LossRepairs(path, 30);
    assert.equal(repairs.repairing(0), false, "no retransmit since the counter was first read");
    writeFileSync(path, snmp(103));
    assert.equal(repairs.repairing(100), true, "moved: seen at 100 ms");
    assert.equal(repairs.repairing(129), true, "29 ms after");
    assert.equal(repairs.repairing(130), false, "quiet for 30 ms");
    writeFileSync(path, snmp(104));
    assert.equal(repairs.repairing(200), true, "moved again");
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test("LossRepairs: without the counter (not Linux), never repairing", () => {
  const repairs = new LossRepairs("/nonexistent/snmp", 30);
  assert.equal(repairs.repairing(0), false);
  assert.equal(repairs.repairing(10), false);
});
