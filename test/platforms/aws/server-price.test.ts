import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createPricingClient } from "../../../src/platforms/aws/aws-clients.js";
import {
  askServerHourPrice,
  parseServerHourPrice,
  serverPriceFilters,
  serverPriceLookup,
} from "../../../src/platforms/aws/server-price.js";
import { formatCostEstimate } from "../../../src/report/cost-text.js";
import { estimateCost } from "../../../src/results/cost-estimate.js";
import { ec2HourPrice } from "../../../src/results/price-table.js";
import { ec2ProductDocument, getProductsAnswer } from "../../helpers/price-list-product.js";
import { AwsStub, json, jsonError, testCredentials } from "./aws-stub.js";

/** The server's price from AWS's Price List API where the table lacks it (the test figures are ours). */
const query = { region: "eu-west-1", instanceType: "c8gn.large" };
const today = new Date("2026-12-01T12:00:00Z");
const pricingOn = (stub: AwsStub) =>
  createPricingClient({ credentials: testCredentials, requestHandler: stub.handler });

describe("reading a GetProducts answer (pure)", () => {
  const document = ec2ProductDocument({ ...query, usdPerHour: "0.1234000000" });

  test("a real-shaped product: the one On-Demand hourly price, the Reserved term's prices left alone", () => {
    assert.deepEqual(parseServerHourPrice(query, [document]), { usdPerHour: 0.1234 });
    // the SDK hands each item over as a String object, not a primitive string
    assert.deepEqual(parseServerHourPrice(query, [new String(document)]), { usdPerHour: 0.1234 });
  });

  test("no product, several, or one we cannot read: no price, and the reason", () => {
    const reason = (list: unknown[]) => {
      const parsed = parseServerHourPrice(query, list);
      assert.ok("reason" in parsed, JSON.stringify(parsed));
      return parsed.reason;
    };
    assert.equal(reason([]), "it lists no On-Demand Linux c8gn.large in eu-west-1");
    assert.match(
      reason([document, ec2ProductDocument({ ...query, usdPerHour: "0.2", sku: "OTHER" })]),
      /^2 products match/,
    );
    assert.equal(reason(["<html>"]), "unreadable answer (not JSON)");
    assert.match(
      reason([JSON.stringify({ product: JSON.parse(document).product })]),
      /^unreadable answer \(terms/,
    );
    assert.match(
      reason([ec2ProductDocument({ region: "us-west-2", instanceType: "c8gn.large", usdPerHour: "0.1" })]),
      /answered for c8gn\.large in us-west-2/,
    );
    const monthly = document.replace('"unit":"Hrs"', '"unit":"Months"');
    assert.match(reason([monthly]), /unreadable price \(0\.1234000000 per Months\)/);
    assert.match(reason([ec2ProductDocument({ ...query, usdPerHour: "0.0000000000" })]), /unreadable price/);
    const twoRates = JSON.parse(document);
    const [term] = Object.values(twoRates.terms.OnDemand) as { priceDimensions: Record<string, unknown> }[];
    if (term) term.priceDimensions.second = { unit: "Hrs", pricePerUnit: { USD: "0.5" } };
    assert.match(reason([JSON.stringify(twoRates)]), /^2 On-Demand prices/);
  });
});

describe("asking AWS (the real SDK client on a stubbed transport)", () => {
  test("one request to us-east-1 with the filters that pin one product; the price with its source", async () => {
    const stub = new AwsStub().on(
      "GetProducts",
      json(getProductsAnswer([ec2ProductDocument({ ...query, usdPerHour: "0.1234000000" })])),
    );
    const price = await askServerHourPrice(pricingOn(stub), query, today);
    assert.deepEqual(price, {
      usd: 0.1234,
      verified: true,
      source: "AWS Price List API (GetProducts), retrieved 2026-12-01",
      retrievedOn: "2026-12-01",
    });
    assert.equal(stub.requests.length, 1);
    const [request] = stub.requests;
    assert.equal(request?.region, "us-east-1", "the Price List API answers from us-east-1 only");
    assert.equal(request?.headers["x-amz-target"], "AWSPriceListService.GetProducts");
    assert.equal(request?.input.ServiceCode, "AmazonEC2");
    assert.equal(request?.input.FormatVersion, "aws_v1");
    assert.deepEqual(request?.input.Filters, [
      { Type: "TERM_MATCH", Field: "instanceType", Value: "c8gn.large" },
      { Type: "TERM_MATCH", Field: "regionCode", Value: "eu-west-1" },
      { Type: "TERM_MATCH", Field: "operatingSystem", Value: "Linux" },
      { Type: "TERM_MATCH", Field: "tenancy", Value: "Shared" },
      { Type: "TERM_MATCH", Field: "preInstalledSw", Value: "NA" },
      { Type: "TERM_MATCH", Field: "capacitystatus", Value: "Used" },
      { Type: "TERM_MATCH", Field: "licenseModel", Value: "No License required" },
    ]);
    assert.deepEqual(request?.input.Filters, serverPriceFilters(query));
  });

  test("a second page is read only to tell one product from several", async () => {
    const first = ec2ProductDocument({ ...query, usdPerHour: "0.1" });
    const second = ec2ProductDocument({ ...query, usdPerHour: "0.2", sku: "OTHER" });
    const stub = new AwsStub().on(
      "GetProducts",
      json({ ...getProductsAnswer([first]), NextToken: "page-2" }),
      json(getProductsAnswer([second])),
    );
    const price = await askServerHourPrice(pricingOn(stub), query, today);
    assert.equal(price.usd, null);
    assert.match(price.source, /2 products match On-Demand Linux c8gn\.large in eu-west-1, not one/);
    assert.equal(stub.requests[1]?.input.NextToken, "page-2");
  });

  test("denied, throttled: no price, why in a few words and how to give it; nothing thrown", async () => {
    const denied = new AwsStub().on(
      "GetProducts",
      jsonError(
        "AccessDeniedException",
        "User: arn:aws:sts::123456789012:assumed-role/Operator/alice is not authorized to perform: pricing:GetProducts",
      ),
    );
    const refused = await askServerHourPrice(pricingOn(denied), query, today);
    assert.equal(refused.usd, null);
    assert.equal(
      refused.source,
      "AWS's Price List API (GetProducts): no answer, pricing:GetProducts not allowed (AccessDeniedException); give the price with --server-usd-per-hour",
    );
    const throttled = new AwsStub().on("GetProducts", jsonError("ThrottlingException", "Rate exceeded"));
    const slow = await askServerHourPrice(pricingOn(throttled), query, today);
    assert.match(slow.source, /no answer, throttled \(ThrottlingException\)/);
  });

  test("one lookup per (region, type) in a command", async () => {
    const stub = new AwsStub().on("GetProducts", (request) => {
      const region = (request.input.Filters as { Field: string; Value: string }[]).find(
        (filter) => filter.Field === "regionCode",
      )?.Value as string;
      return json(
        getProductsAnswer([ec2ProductDocument({ region, instanceType: "c8gn.large", usdPerHour: "0.1" })]),
      );
    });
    const lookup = serverPriceLookup(pricingOn(stub), today);
    const prices = await Promise.all([
      lookup(query),
      lookup(query),
      lookup({ ...query, region: "us-west-2" }),
    ]);
    assert.deepEqual(
      prices.map((price) => price.usd),
      [0.1, 0.1, 0.1],
    );
    assert.equal(stub.requests.length, 2, "eu-west-1 once, us-west-2 once");
  });
});

describe("the estimate with a looked-up server price (pure)", () => {
  const hours = 3;
  const cost = (server: Parameters<typeof estimateCost>[0]["server"], region = "eu-west-1") =>
    estimateCost({ region, lambda: [], server, serverTransferBytes: 0 });
  const listed = {
    usd: 0.1234,
    verified: true,
    source: "AWS Price List API (GetProducts), retrieved 2026-12-01",
    retrievedOn: "2026-12-01",
  };

  test("the table lacks the type: the looked-up price, and the line says where it came from", () => {
    assert.equal(ec2HourPrice("eu-west-1", "c8gn.large").usd, null, "the premise: the table lacks it");
    const estimate = cost({ instanceType: "c8gn.large", hours, listedPrice: listed });
    const line = estimate.lines.find((l) => l.item === "ec2-server");
    assert.equal(line?.usd, 0.1234 * hours);
    assert.equal(line?.source, listed.source);
    assert.deepEqual(estimate.missing, []);
    const text = formatCostEstimate(estimate);
    assert.match(text, /EC2 server\s+3\.00 hours of c8gn\.large\s+\$0\.3702\n/);
    assert.match(text, /source: AWS Price List API \(GetProducts\), retrieved 2026-12-01/);
  });

  test("the command line wins over the lookup; the table wins where it has the type", () => {
    const given = cost({ instanceType: "c8gn.large", hours, usdPerHourOverride: 0.5, listedPrice: listed });
    assert.equal(given.lines.find((l) => l.item === "ec2-server")?.source, "given on the command line");
    const inTable = cost({ instanceType: "c7gn.large", hours, listedPrice: listed }, "us-east-1");
    const tableLine = inTable.lines.find((l) => l.item === "ec2-server");
    assert.equal(tableLine?.source, ec2HourPrice("us-east-1", "c7gn.large").source);
    assert.notEqual(tableLine?.source, listed.source);
  });

  test("the lookup found none: price not in table, the table's gap and the lookup's reason together", () => {
    const none = {
      usd: null,
      verified: false,
      source:
        "AWS's Price List API (GetProducts): no answer, pricing:GetProducts not allowed (AccessDeniedException); give the price with --server-usd-per-hour",
      retrievedOn: null,
    };
    const text = formatCostEstimate(
      cost({ instanceType: "c8gn.large", hours, listedPrice: none }),
      Number.POSITIVE_INFINITY, // unwrapped: the whole source on one line
    );
    assert.match(text, /EC2 server\s+3\.00 hours of c8gn\.large\s+price not in table/);
    assert.match(
      text,
      /source: c8gn\.large is not in the price table; AWS's Price List API \(GetProducts\): no answer, pricing:GetProducts not allowed \(AccessDeniedException\); give the price with --server-usd-per-hour/,
    );
  });
});
