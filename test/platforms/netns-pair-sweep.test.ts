import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { createNetnsPair } from "../helpers/netns-pair.js";
import { rootSkip } from "../helpers/root-gate.js";

const skip = rootSkip("the namespace pair's sweep of stale pairs");
const namespaces = () => execFileSync("ip", ["netns", "list"], { encoding: "utf8" });

test("a namespace pair left by a process that is gone is removed by the next pair of its prefix; a live process's is kept", {
  skip,
}, () => {
  // above pid_max (at most 4,194,304): no process has it; our parent is alive
  const stale = ["lnbw4194305a", "lnbw4194305b"];
  const live = `lnbw${process.ppid}a`;
  for (const ns of [...stale, live]) execFileSync("ip", ["netns", "add", ns]);
  const pair = createNetnsPair("lnbw");
  try {
    const left = namespaces();
    for (const ns of stale) assert.doesNotMatch(left, new RegExp(`^${ns}\\b`, "m"));
    assert.match(left, new RegExp(`^${live}\\b`, "m"));
    assert.match(left, new RegExp(`^${pair.serverNs}\\b`, "m"));
  } finally {
    pair.remove();
    for (const ns of [...stale, live])
      try {
        execFileSync("ip", ["netns", "del", ns], { stdio: "ignore" });
      } catch {
        // already removed
      }
  }
});
