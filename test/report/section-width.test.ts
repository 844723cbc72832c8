import assert from "node:assert/strict";
import { test } from "node:test";
import { renderTerminal } from "../../src/report/terminal-format.js";
import { loadReportModel } from "../../src/report/write-report.js";

/** Real runs on the lab (test/fixtures/README.md): the token-bucket and the fleet sections. */
const bucketRun = "test/fixtures/bucket-run";
const fleetRun = "test/fixtures/fleet-run";

function linesWiderThan(text: string, width: number): string[] {
  return text.split("\n").filter((line) => line.length > width);
}

for (const width of [80, 100]) {
  test(`the token-bucket section of a real bucket run fits ${width} columns, published figures beside it`, async () => {
    const text = renderTerminal(await loadReportModel(bucketRun), { width, baseline: true });
    assert.deepEqual(linesWiderThan(text, width), []);
    const section = text.slice(text.indexOf("Token bucket (each repetition fitted"));
    assert.ok(section.length < text.length, "the section is in the console text");
    const joined = section.replaceAll(/\n +/g, " ");
    assert.match(
      joined,
      /- default-625-1in8 x86_64 1,024 MB upload \(n=2\): sustained \d+ \[\d+-\d+\] Mbit\/s; peak/,
    );
    assert.match(joined, /- default-625-1in8 x86_64 1,024 MB download \(n=2\): sustained/);
    // both published upload figures at 1,024 MB, each with this run's first second beside it
    assert.equal(joined.match(/published \(sjakthol\/aws-network-benchmark/g)?.length, 2);
    assert.match(joined, /this run's first second \d+ Mbit\/s \(published 2,043-2,752\)/);
  });

  test(`the fleet section of a real fleet run fits ${width} columns`, async () => {
    const text = renderTerminal(await loadReportModel(fleetRun), { width, baseline: true });
    assert.deepEqual(linesWiderThan(text, width), []);
    const joined = text.replaceAll(/\n +/g, " ");
    assert.match(joined, /Environments at once \(fleets\), sustained Mbit\/s/);
    assert.match(
      joined,
      /iperf3 upload -P 1 -t 6s 1,024 MB x3: per environment 7\d \[7\d-7\d\] n=6, aggregate 2\d\d n=2/,
    );
  });
}

test("--wide and summary.txt carry the token-bucket table and its published figures", async () => {
  const text = renderTerminal(await loadReportModel(bucketRun), { wide: true });
  assert.match(
    text,
    /Cell +n +Sustained \(Mbit\/s\) +Peak \(Mbit\/s\) +Bucket \(MB\) +Burst \(s\) +Refill while idle/,
  );
  assert.match(text, /default-625-1in8 x86_64 1,024 MB upload +2 +\d+ \[\d+-\d+\]/);
  assert.match(text, /Published figures for the same direction and memory size/);
});
