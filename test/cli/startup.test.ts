import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { commandSummaries } from "../../src/cli/entry.js";
import { buildProgram } from "../../src/cli/main.js";
import { reportFormats } from "../../src/report/formats.js";
import { acquireBenchLock } from "../helpers/bench-lock.js";

const built = existsSync("dist/cli/entry.js");

test("`lambda-netbench --version` and `--help` start in under 0.5 s (median of 5)", {
  skip: !built && "needs `npm run build`",
}, async () => {
  const lock = await acquireBenchLock(300);
  try {
    for (const flag of ["--version", "--help"]) {
      const seconds: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const start = process.hrtime.bigint();
        execFileSync(process.execPath, ["bin/lambda-netbench.js", flag], { stdio: "pipe" });
        seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
      }
      const median = [...seconds].sort((a, b) => a - b)[2] as number;
      assert.ok(
        median < 0.5,
        `${flag}: median ${median.toFixed(2)} s of ${seconds.map((s) => s.toFixed(2)).join(", ")}`,
      );
    }
  } finally {
    lock.release();
  }
});

test("the entry's command list matches the commands' own descriptions", () => {
  const program = buildProgram();
  const real = new Map(program.commands.map((c) => [c.name(), c.description()]));
  assert.deepEqual(
    commandSummaries.map((c) => [c.name, c.summary]),
    [...real.entries()],
  );
});

test("lazily loaded formats describe themselves as their modules do", async () => {
  const { htmlFormat } = await import("../../src/report/html-format.js");
  const { pngFormat, svgFormat } = await import("../../src/report/chart-formats.js");
  for (const format of [htmlFormat, pngFormat, svgFormat])
    assert.equal(reportFormats[format.name]?.description, format.description);
});
