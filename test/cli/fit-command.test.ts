import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { buildProgram } from "../../src/cli/main.js";
import { validatePlan } from "../../src/plan/load-plan.js";

/** `lambda-netbench fit` as a user runs it: on iperf3 output, with --json, on a wrong file, with --save-profile. */

const fixtures = join(import.meta.dirname, "../fixtures/iperf3");

async function fit(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  const exitCode = process.exitCode;
  console.log = (...parts: unknown[]) => out.push(parts.join(" "));
  console.error = (...parts: unknown[]) => err.push(parts.join(" "));
  try {
    process.exitCode = 0;
    await buildProgram().parseAsync(["node", "lambda-netbench", "fit", ...args]);
    return { out: out.join("\n"), err: err.join("\n"), code: Number(process.exitCode ?? 0) };
  } finally {
    console.log = log;
    console.error = error;
    process.exitCode = exitCode;
  }
}

test("fit FILE prints the model with its bounds; --json prints the same as JSON", async () => {
  const text = await fit(join(fixtures, "download-1s.json"));
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^download: 1 transfer\(s\), 1\.00 s samples, counted by the receiver$/m);
  assert.match(text.out, /^ {2}sustained {3}125 Mbit\/s$/m);
  assert.match(text.out, /^ {2}peak {8}at least 405 Mbit\/s \(not resolved: a bound\)$/m);
  const json = await fit(join(fixtures, "download-1s.json"), join(fixtures, "download-250ms.json"), "--json");
  assert.equal(json.code, 0, json.err);
  const parsed = JSON.parse(json.out);
  assert.equal(parsed.models.length, 1);
  assert.equal(parsed.models[0].n, 2);
  assert.equal(parsed.models[0].peakBitsPerSecond.bound, "at-least");
  assert.equal(parsed.fits.length, 2);
  assert.equal(parsed.fits[0].samples, undefined, "the samples stay in the files");
});

test("a file that is not iperf3 output: exit code 2 and the field, what was expected and what was found", async () => {
  const result = await fit(join(fixtures, "loopback/text-output.txt"));
  assert.equal(result.code, 2);
  assert.equal(result.out, "");
  assert.match(result.err, /^lambda-netbench fit: .*text-output\.txt: line 1: expected iperf3 -J/);
  const missing = await fit(join(fixtures, "no-such-file.json"));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no-such-file\.json: cannot read it \(no such file\)$/);
  const direction = await fit(join(fixtures, "download-1s.json"), "--direction", "sideways");
  assert.match(direction.err, /--direction: "sideways" is not allowed \(allowed: upload, download\)/);
});

test("--save-profile writes a plan that validates and replays with the original's interval", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lnb-fit-"));
  try {
    const csv = join(dir, "samples.csv");
    writeFileSync(csv, "seconds,bytes\n0.5,1000\n1,1000\n1.5,1000\n2,1000\n2.5,1000\n");
    const unstated = await fit(csv, "--save-profile", "mine", "--out", dir);
    assert.equal(unstated.code, 2);
    assert.match(unstated.err, /--direction: the input does not say its direction/);
    const result = await fit(join(fixtures, "download-250ms.json"), "--save-profile", "mine", "--out", dir);
    assert.equal(result.code, 0, result.err);
    const plan = JSON.parse(readFileSync(join(dir, "mine.plan.json"), "utf8"));
    assert.deepEqual(plan.probes, [
      {
        kind: "iperf3",
        direction: "download",
        parallel: 1,
        timeSeconds: 5,
        intervalMs: 250,
        omitSeconds: 0,
        restSeconds: 4,
      },
    ]);
    assert.equal(validatePlan(plan).probes.length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
