import assert from "node:assert/strict";
import test from "node:test";
import { tapCounts, tapFailures } from "../scripts/tap-results.mjs";

// node 20's TAP for a passing test, a failing one and a failing subtest under its parent
const TAP = `TAP version 13
# Subtest: good
ok 1 - good
  ---
  duration_ms: 0.85
  ...
# Subtest: bad one
not ok 2 - bad one
  ---
  duration_ms: 0.49
  location: '/tmp/a.test.mjs:3:1'
  failureType: 'testCodeFailure'
  error: 'one is not above two'
  code: 'ERR_ASSERTION'
  stack: |-
    TestContext.<anonymous> (file:///tmp/a.test.mjs:3:32)
  ...
# Subtest: outer
    # Subtest: inner bad
    not ok 1 - inner bad
      ---
      location: '/tmp/a.test.mjs:4:38'
      failureType: 'testCodeFailure'
      error: |-
        Expected values to be strictly equal:

        1 !== 2
      ...
    1..1
not ok 3 - outer
  ---
  location: '/tmp/a.test.mjs:4:1'
  failureType: 'subtestsFailed'
  error: '1 subtest failed'
  ...
1..3
# tests 4
# suites 0
# pass 1
# fail 3
# cancelled 0
# skipped 0
# todo 0
`;

test("the TAP counts", () => {
  assert.deepEqual(tapCounts(TAP), { tests: 4, passed: 1, failed: 3, skipped: 0 });
});

test("the failed tests are named with where and why; a parent failed only by its subtest is not", () => {
  assert.deepEqual(tapFailures(TAP), [
    { name: "bad one", location: "/tmp/a.test.mjs:3:1", error: "one is not above two" },
    { name: "inner bad", location: "/tmp/a.test.mjs:4:38", error: "Expected values to be strictly equal:" },
  ]);
});

test("a passing run names no failure", () => {
  assert.deepEqual(tapFailures("TAP version 13\nok 1 - good\n1..1\n# pass 1\n"), []);
});
