import assert from "node:assert/strict";
import { test } from "node:test";
import { loadReportModel } from "../../src/report/write-report.js";

// A real fleet run on the lab (test/fixtures/README.md): each repetition invokes every
// environment of its fleet, so the run planned as many invocations as its complete records show
test("a fleet run's planned invocations count every environment of each repetition", async () => {
  const { analysis } = await loadReportModel("test/fixtures/fleet-run");
  assert.equal(analysis.recordedInvocations, 16);
  assert.equal(analysis.plannedInvocations, 16, "was 8: the repetitions without their fleets");
});
