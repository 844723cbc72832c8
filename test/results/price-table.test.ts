import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { commercialRegions } from "../../src/platforms/aws/commercial-regions.js";
import { formatCostEstimate } from "../../src/report/cost-text.js";
import { estimateCost } from "../../src/results/cost-estimate.js";
import { ec2HourPrice, lambdaPrice, priceTable } from "../../src/results/price-table.js";
import prices from "../../src/results/prices.json" with { type: "json" };

const sourceRoot = new URL("../../src/", import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Every number the price file holds (prices only: not dates or counts). */
function priceValues(): Set<number> {
  const values = new Set<number>();
  const walk = (value: unknown, key: string) => {
    if (typeof value === "number" && /perMillion|gigabyteSecond|x86_64|arm64|usdPer/i.test(key))
      values.add(value);
    else if (typeof value === "object" && value !== null)
      for (const [k, v] of Object.entries(value)) walk(v, /^(x86_64|arm64)$/.test(k) ? `${key}.${k}` : k);
  };
  walk(prices, "");
  return values;
}

/** Words that make a name about money: a number beside one that equals a price is that price. */
const MONEY_WORDS = new Set([
  "price",
  "prices",
  "priced",
  "pricing",
  "cost",
  "costs",
  "usd",
  "dollar",
  "dollars",
  "fee",
  "fees",
]);

const isMoneyName = (name: string) =>
  name.includes("$") ||
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((word) => MONEY_WORDS.has(word));

/** A module about money (its file named for prices or costs): every number in it is in money context. */
const isPricingModule = (fileName: string) => /pric|cost/i.test(fileName.split("/").at(-1) ?? "");

/** Where a number's meaning is named: the slot it fills, or the statement it stands in. */
function boundary(node: ts.Node): boolean {
  return (
    ts.isVariableDeclaration(node) ||
    ts.isPropertyAssignment(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isParameter(node) ||
    ts.isEnumMember(node) ||
    ts.isFunctionLike(node) ||
    ts.isSourceFile(node) ||
    (ts.isStatement(node) && !ts.isVariableStatement(node))
  );
}

/**
 * Is a number in money context: in a pricing module, or next to a money name (the variable,
 * property or parameter it is the value of, or a name in the expression it stands in)? A number
 * that only happens to equal a price (a 1% tolerance of 0.01 beside an interval) is not one.
 */
function inMoneyContext(literal: ts.Node, fileName: string): boolean {
  if (isPricingModule(fileName)) return true;
  let expression = literal;
  while (expression.parent && !boundary(expression.parent)) expression = expression.parent;
  const names: string[] = [];
  const slot = expression.parent;
  if (
    slot &&
    (ts.isVariableDeclaration(slot) ||
      ts.isPropertyAssignment(slot) ||
      ts.isPropertyDeclaration(slot) ||
      ts.isParameter(slot) ||
      ts.isEnumMember(slot))
  )
    names.push(slot.name.getText());
  const collect = (node: ts.Node) => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) names.push(node.text);
    ts.forEachChild(node, collect);
  };
  collect(expression);
  return names.some(isMoneyName);
}

/** The price literals of one source file: numbers equal to a price in money context, and dollar figures in text. */
function priceLiterals(fileName: string, text: string, prices: Set<number>): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const offences: string[] = [];
  const visit = (node: ts.Node) => {
    const where = `${fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    if (ts.isNumericLiteral(node) && prices.has(Number(node.text)) && inMoneyContext(node, fileName))
      offences.push(`${where}: ${node.text}`);
    // a dollar figure written into a message ("$0.20 per million") is a price literal too
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node))
      if (/\$\d+\.\d+|USD \d|\d+(\.\d+)? ?USD/.test(node.text)) offences.push(`${where}: ${node.text}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return offences;
}

test("one price source: no price literal in src outside prices.json", () => {
  const values = priceValues();
  assert.ok(values.has(0.0000133334) && values.has(0.2), "the walker finds the table's prices");
  assert.ok(values.has(0.01), "the data transfer price per GB, which a 1% tolerance happens to equal");
  const offences = sourceFiles(sourceRoot).flatMap((file) =>
    priceLiterals(file.slice(sourceRoot.length), readFileSync(file, "utf8"), values),
  );
  assert.deepEqual(offences, []);
});

test("the literal check can fail: a price beside a money name, in a pricing module or in text is found", () => {
  const values = priceValues();
  const planted = (fileName: string, text: string) => priceLiterals(fileName, text, values);
  assert.deepEqual(planted("runner/planted.ts", "const lambdaUsdPerGbSecond = 0.0000166667;"), [
    "runner/planted.ts:1: 0.0000166667",
  ]);
  assert.deepEqual(planted("runner/planted.ts", "const line = { item: 'requests', usd: (n * 0.2) / 1e6 };"), [
    "runner/planted.ts:1: 0.2",
  ]);
  assert.deepEqual(
    planted("runner/planted.ts", "function f(n: number) {\n  return n * requestPrice(0.2);\n}"),
    ["runner/planted.ts:2: 0.2"],
  );
  assert.deepEqual(planted("results/cost-extra.ts", "const x = { a: 0.2 };"), [
    "results/cost-extra.ts:1: 0.2",
  ]);
  assert.deepEqual(planted("report/planted.ts", 'const note = "requests cost $0.20 per million";'), [
    "report/planted.ts:1: requests cost $0.20 per million",
  ]);
});

test("the literal check reads context: a number that only equals a price is not one", () => {
  const values = priceValues();
  const text = [
    "const SAME_INTERVAL_SHARE = 0.01;",
    "const same = ours.filter((s) => Math.abs(s.samples.intervalSeconds - interval) <= interval * 0.01);",
    "const p = { x: 0.0000166667 };",
  ].join("\n");
  assert.deepEqual(priceLiterals("results/published-series.ts", text, values), []);
});

test("every region the tool offers has a Lambda entry with a source: verified, or marked unverified", () => {
  for (const region of commercialRegions) {
    const entry = (
      prices.lambda as Record<
        string,
        { verified: boolean; source: string; retrievedOn: string | null; sameAs?: string }
      >
    )[region];
    assert.ok(entry, `${region} has no entry`);
    assert.ok(entry.source.length > 10, `${region}: no source`);
    assert.ok("retrievedOn" in entry, `${region}: no date field`);
    if (entry.verified) assert.match(String(entry.retrievedOn), /^\d{4}-\d{2}/);
    else
      assert.equal(lambdaPrice("aws", region, "arm64")?.verified, false, `${region} must show as unverified`);
  }
  assert.deepEqual(
    Object.keys(prices.lambda).sort(),
    [...commercialRegions].sort(),
    "no region outside the offered list",
  );
  assert.equal(lambdaPrice("aws", "us-east-1", "arm64")?.verified, true);
  assert.equal(
    priceTable.regions["us-west-2"]?.gigabyteSecond.arm64,
    prices.lambda["us-east-1"].gigabyteSecond.arm64,
  );
  for (const types of Object.values(prices.ec2OnDemand.regions))
    for (const entry of Object.values(types)) assert.ok(entry.source && entry.retrievedOn);
});

test("estimator: hand-computed Lambda, server hours; missing prices reported, never guessed", () => {
  const gbSecondArm = prices.lambda["us-east-1"].gigabyteSecond.arm64;
  const gbSecondX86 = prices.lambda["us-east-1"].gigabyteSecond.x86_64;
  const c7gn = prices.ec2OnDemand.regions["us-east-1"]["c7gn.large"].usdPerHour;
  const estimate = estimateCost({
    region: "us-east-1",
    lambda: [
      { memoryMb: 1024, arch: "arm64", billedSeconds: 10, invocations: 3 },
      { memoryMb: 10240, arch: "x86_64", billedSeconds: 20, invocations: 3 },
    ],
    server: { instanceType: "c7gn.large", hours: 2 },
    serverTransferBytes: 5e9,
  });
  // 1 GB x 10 s x 3 = 30 GB-s (arm64); 10 GB x 20 s x 3 = 600 GB-s (x86_64)
  assert.equal(estimate.lambdaGbSeconds, 630);
  const duration = estimate.lines.find((l) => l.item === "lambda-duration");
  assert.ok(Math.abs((duration?.usd ?? 0) - (30 * gbSecondArm + 600 * gbSecondX86)) < 1e-12);
  assert.equal(estimate.requests, 6);
  assert.ok(Math.abs((estimate.lines.find((l) => l.item === "ec2-server")?.usd ?? 0) - 2 * c7gn) < 1e-12);
  assert.equal(estimate.serverTransferGigabytes, 5);
  // 2 hours of one public IPv4 address, 5 GB to and from the server's public address
  const ipv4 = estimate.lines.find((l) => l.item === "public-ipv4");
  assert.ok(Math.abs((ipv4?.usd ?? 0) - 2 * prices.publicIpv4.usdPerHour) < 1e-12);
  const transfer = estimate.lines.find((l) => l.item === "data-transfer");
  assert.ok(Math.abs((transfer?.usd ?? 0) - 5 * prices.dataTransfer.usdPerGigabyte) < 1e-12);
  assert.equal(transfer?.verified, false, "the transfer price is quoted, not read on AWS's page");
  assert.deepEqual(estimate.missing, []);
  const text = formatCostEstimate(estimate);
  assert.match(text, /Public IPv4 +2\.00 hours of 1 address +\$0\.0100/);
  // a server type the table has no sourced price for is reported missing, never guessed
  const c8gn = ec2HourPrice("us-west-2", "c8gn.large");
  assert.equal(c8gn.usd, null);
  const unpriced = estimateCost({
    region: "us-west-2",
    lambda: [{ memoryMb: 1024, arch: "arm64", billedSeconds: 1, invocations: 1 }],
    server: { instanceType: "c8gn.large", hours: 1 },
    serverTransferBytes: 1e9,
  });
  assert.deepEqual(unpriced.missing, ["ec2-server"]);
  assert.match(formatCostEstimate(unpriced), /Total .*at least/);
  assert.throws(
    () =>
      estimateCost({
        region: "us-east-1",
        lambda: [{ memoryMb: 64, arch: "arm64", billedSeconds: 1, invocations: 1 }],
        server: null,
        serverTransferBytes: 0,
      }),
    /memoryMb/,
  );
});
