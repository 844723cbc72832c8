import assert from "node:assert/strict";
import test from "node:test";
import { formatPreflight } from "../../src/platforms/aws/preflight.js";
import { formatCostEstimate } from "../../src/report/cost-text.js";
import { wrapEach } from "../../src/report/text-layout.js";
import { estimateCost } from "../../src/results/cost-estimate.js";

const words = (text: string) => text.split(/\s+/).filter(Boolean);
const longest = (text: string) => Math.max(...text.split("\n").map((line) => line.length));

// an unpriced server: the longest total and a source line explaining why
const unpriced = estimateCost({
  region: "ap-southeast-2",
  lambda: [{ memoryMb: 10240, arch: "arm64", billedSeconds: 37.5, invocations: 120 }],
  server: {
    instanceType: "c8gn.large",
    hours: 6,
    listedPrice: {
      usd: null,
      verified: false,
      source:
        "AWS's Price List API (GetProducts): AccessDeniedException; give the price with --server-usd-per-hour",
      retrievedOn: null,
    },
  },
  serverTransferBytes: 40e9,
});

test("the cost estimate fits 80 columns, with every word it has at 100", () => {
  const wide = formatCostEstimate(unpriced, 1000);
  assert.ok(longest(wide) > 80, "the case is one that needs wrapping");
  const narrow = formatCostEstimate(unpriced, 80);
  assert.ok(longest(narrow) <= 80, narrow);
  assert.deepEqual(words(narrow), words(wide));
  // the total wraps beside its label; a source wraps under its own text
  assert.match(narrow, /^ {2}Total {12}at least \$/m);
  assert.match(narrow, /^ {2}source: c8gn\.large is not in the price table/m);
  assert.match(narrow, /^ {10}\S/m);
});

test("a total that fits stays under the prices", () => {
  const priced = estimateCost({
    region: "us-west-2",
    lambda: [{ memoryMb: 1024, arch: "arm64", billedSeconds: 10, invocations: 6 }],
    server: null,
    serverTransferBytes: 0,
  });
  const lines = formatCostEstimate(priced, 80).split("\n");
  const dollarColumn = (label: string) => lines.find((line) => line.startsWith(`  ${label}`))?.indexOf("$");
  const quantityColumn =
    lines.find((line) => line.startsWith("  Lambda requests"))?.indexOf("6 requests") ?? 0;
  assert.ok((dollarColumn("Total") ?? 0) > quantityColumn && quantityColumn > 0, lines.join("\n"));
  assert.equal(dollarColumn("Total"), dollarColumn("Lambda requests"));
});

test("the preflight fits 80 columns: a long detail wraps under the detail column", () => {
  const detail =
    "no AWS credentials found (could not load credentials from any providers); set AWS_PROFILE (then `aws sso login` for SSO profiles), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY";
  const result = {
    items: [
      { check: "credentials" as const, region: null, status: "failed" as const, detail },
      { check: "region" as const, region: "us-west-2", status: "skipped" as const, detail: "not checked" },
    ],
    ok: false,
    account: null,
  };
  const text = formatPreflight(result, 80);
  assert.ok(longest(text) <= 80, text);
  assert.deepEqual(words(text), words(formatPreflight(result, 1000)));
  const lines = text.split("\n");
  const detailColumn = lines[1]?.indexOf("no AWS") ?? -1;
  assert.ok(detailColumn > 0);
  assert.match(lines[2] ?? "", new RegExp(`^ {${detailColumn}}\\S`));
});

test("wrapEach continues a wrapped line two columns in from where it started", () => {
  const lines = wrapEach(
    ["Plan seed: 18 cells on us-west-2 (6 memory sizes)", "  us-west-2: 48 invocations, about 12 min"],
    30,
  );
  assert.ok(
    lines.every((line) => line.length <= 30),
    lines.join("\n"),
  );
  assert.deepEqual(lines, [
    "Plan seed: 18 cells on",
    "  us-west-2 (6 memory sizes)",
    "  us-west-2: 48 invocations,",
    "    about 12 min",
  ]);
});

test("a quantity wider than the others keeps the prices in one column (the table sizes its columns)", () => {
  const estimate = estimateCost({
    region: "us-west-2",
    lambda: [{ memoryMb: 1024, arch: "arm64", billedSeconds: 10, invocations: 6 }],
    server: null,
    serverTransferBytes: 0,
  });
  const long = {
    ...estimate,
    lines: estimate.lines.map((line, i) =>
      i === 0 ? { ...line, quantity: `${line.quantity} over 3 regions and 2 architectures` } : line,
    ),
  };
  const lines = formatCostEstimate(long, 100)
    .split("\n")
    .filter((line) => line.includes("$"));
  const dollars = new Set(lines.map((line) => line.indexOf("$")));
  assert.equal(dollars.size, 1, lines.join("\n"));
});
