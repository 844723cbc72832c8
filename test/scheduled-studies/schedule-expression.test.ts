import assert from "node:assert/strict";
import { test } from "node:test";
import { parseScheduleExpression } from "../../src/scheduled-studies/schedule-expression.js";

test("rate and cron expressions EventBridge Scheduler accepts", () => {
  assert.deepEqual(parseScheduleExpression("rate(1 day)"), {
    kind: "rate",
    seconds: 86_400,
    text: "rate(1 day)",
  });
  assert.equal((parseScheduleExpression(" rate(12 hours) ") as { seconds: number }).seconds, 43_200);
  assert.equal((parseScheduleExpression("rate(30 minutes)") as { seconds: number }).seconds, 1_800);
  for (const cron of [
    "cron(0 6 * * ? *)",
    "cron(15 10 ? * MON-FRI *)",
    "cron(0/30 8-17 ? * 2-6 *)",
    "cron(0 12 L * ? 2027)",
    "cron(0 9 ? * 2#1 *)",
    "cron(0,30 1 1,15 JAN,JUL ? *)",
  ])
    assert.equal(parseScheduleExpression(cron).kind, "cron", cron);
});

test("bad expressions are refused naming the field and what is allowed", () => {
  const cases: Array<[string, RegExp]> = [
    ["every day", /every: "every day" is not a schedule expression \(allowed: "rate\(1 day\)"/],
    ["rate(1 days)", /use the singular for 1/],
    ["rate(2 day)", /use the plural above 1/],
    ["rate(0 minutes)", /at least 1/],
    ["rate(1 week)", /minute\(s\), hour\(s\) or day\(s\)/],
    ["rate(1.5 hours)", /whole number/],
    ["cron(0 6 * * *)", /cron needs 6 fields .* got 5/],
    ["cron(0 6 * * * *)", /exactly one of day-of-month and day-of-week must be "\?"/],
    ["cron(0 6 ? * ? *)", /exactly one of/],
    ["cron(60 6 * * ? *)", /minutes "60": "60" is not allowed \(allowed: 0-59/],
    ["cron(0 24 * * ? *)", /hours "24"/],
    ["cron(0 6 * FOO ? *)", /month "FOO"/],
    ["cron(0 ? * * ? *)", /"\?" is allowed only in day-of-month and day-of-week/],
    ["at(2026-12-01T06:00:00)", /not a schedule expression/],
  ];
  for (const [input, message] of cases) assert.throws(() => parseScheduleExpression(input), message, input);
});
