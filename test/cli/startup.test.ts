import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { commandSummaries } from "../../src/cli/entry.js";
import { buildProgram } from "../../src/cli/main.js";
import { reportFormats } from "../../src/report/formats.js";

const built = existsSync("dist/cli/entry.js");

/** The modules a run of the binary loads (node: built-ins left out), as paths in the checkout. */
function modulesLoaded(flag: string): string[] {
  const scratch = mkdtempSync(join(tmpdir(), "lnb-startup-"));
  try {
    const trace = join(scratch, "modules");
    execFileSync(
      process.execPath,
      ["--import", "./test/helpers/module-trace.mjs", "bin/lambda-netbench.js", flag],
      { stdio: "pipe", env: { ...process.env, LNB_MODULE_TRACE: trace } },
    );
    const root = pathToFileURL(`${process.cwd()}/`).href;
    return readFileSync(trace, "utf8")
      .split("\n")
      .filter((url) => url.startsWith("file:"))
      .map((url) => url.replace(root, ""));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// What makes a start slow is what it loads: vega, resvg, the AWS SDK or zod (about 100 modules)
// cost 0.1-2 s each. Counting modules holds on a busy host where a wall-clock bound does not.
test("`lambda-netbench --version` and `--help` load only the entry, commander and a few leaves", {
  skip: !built && "needs `npm run build`",
}, () => {
  for (const flag of ["--version", "--help"]) {
    const modules = modulesLoaded(flag);
    const heavy = modules.filter((path) => /node_modules\/(?!commander\/)/.test(path));
    assert.deepEqual(heavy, [], `${flag} loads no dependency but commander`);
    assert.ok(modules.length <= 12, `${flag}: ${modules.length} modules: ${modules.join(", ")}`);
  }
});

// Time as a ratio to a bare `node -e 0` started in the same loop: the host's load moves both.
test("`--version` and `--help` take at most 2.5 times a bare node start (median of 5)", {
  skip: !built && "needs `npm run build`",
}, () => {
  const secondsOf = (args: string[]) => {
    const start = process.hrtime.bigint();
    execFileSync(process.execPath, args, { stdio: "pipe" });
    return Number(process.hrtime.bigint() - start) / 1e9;
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[2] as number;
  for (const flag of ["--version", "--help"]) {
    const cli: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      bare.push(secondsOf(["-e", "0"]));
      cli.push(secondsOf(["bin/lambda-netbench.js", flag]));
    }
    const ratio = median(cli) / median(bare);
    assert.ok(
      ratio <= 2.5,
      `${flag}: median ${median(cli).toFixed(2)} s, bare node ${median(bare).toFixed(2)} s (x${ratio.toFixed(1)})`,
    );
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
