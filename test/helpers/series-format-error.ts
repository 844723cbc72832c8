import assert from "node:assert/strict";
import { SeriesFormatError } from "../../src/results/measured-series.js";

/** The SeriesFormatError a reader throws (fails the test when it throws anything else, or nothing). */
export function formatError(run: () => unknown): SeriesFormatError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof SeriesFormatError, String(error));
    return error;
  }
  assert.fail("no error");
}
