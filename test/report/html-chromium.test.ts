import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { renderHtml } from "../../src/report/html-format.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { fixtureStudy } from "../helpers/fixture-study.js";

/**
 * The HTML report in real headless Chromium (Debian package), offline: no console errors, no
 * network requests, every chart an SVG with data marks. The screenshot is kept for a person to look at
 * (path printed; LNBR_SCREENSHOT overrides it).
 */
const executablePath = "/usr/bin/chromium";
let work: string;
before(async () => {
  work = await mkdtemp(join(tmpdir(), "lnbr-html-"));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

test("the HTML report renders offline in Chromium with every chart drawn", {
  skip: !existsSync(executablePath) && "no /usr/bin/chromium",
  timeout: 120_000,
}, async () => {
  const { manifest, records } = fixtureStudy();
  const model = buildReportModel(manifest, records);
  const htmlPath = join(work, "report.html");
  await writeFile(htmlPath, await renderHtml(model));
  // a fresh profile per run (playwright wants it as launchPersistentContext's argument)
  const browser = await chromium.launchPersistentContext(join(work, "profile"), {
    executablePath,
    headless: true,
    viewport: { width: 1300, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning")
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("request", (request) => {
      if (!request.url().startsWith("file://")) requests.push(request.url());
    });
    await page.goto(`file://${htmlPath}`, { waitUntil: "load" });
    // a string, not a function: tsx would wrap a function's inner helpers in __name(), unknown in the page
    const charts =
      (await page.evaluate(`[...document.querySelectorAll("figure[data-chart]")].map((figure) => {
      const marks = (selector) =>
        [...figure.querySelectorAll(selector)].filter((e) => !e.closest(".role-axis, .role-legend")).length;
      return {
        name: figure.getAttribute("data-chart"),
        width: figure.querySelector("svg")?.getBoundingClientRect().width ?? 0,
        lines: marks("g.mark-line path"),
        symbols: marks("g.mark-symbol path"),
        rules: marks("g.mark-rule line"),
        texts: [...figure.querySelectorAll("text")].map((t) => t.textContent ?? ""),
      };
    })`)) as Array<{
        name: string;
        width: number;
        lines: number;
        symbols: number;
        rules: number;
        texts: string[];
      }>;
    assert.equal(charts.length, 9, "4 charts per target, 2 targets, and one chart both targets share");
    for (const chart of charts) {
      assert.ok(chart.width > 300, `${chart.name} is laid out`);
      assert.ok(
        chart.texts.some((t) => t.includes("EMULATED")),
        `${chart.name} is labelled emulated`,
      );
    }
    const through = charts.find((c) => c.name === "throughput-vs-memory-raised-3000");
    assert.ok(through);
    // 2 probes x 6 memory sizes x (sustained, effective) points, min-max whiskers on the sustained
    // ones, the quota rule, and the published study's two "about 2,400" points (Oregon, iperf3 upload)
    assert.equal(through.lines, 4);
    assert.equal(through.symbols, 24 + 2);
    assert.equal(through.rules, 12 + 1);
    assert.ok(through.texts.some((t) => t.includes("quota 3,000 Mbit/s")));
    assert.ok(through.texts.some((t) => t.startsWith("seed-2026: Oregon (us-west-2) iperf3 upload")));
    // the overlay: both lab profiles on one chart with the study's points beside them
    const shared = charts.find((c) => c.name === "throughput-vs-memory-all-targets");
    assert.ok(shared);
    assert.equal(shared.lines, 2, "one line per target");
    assert.equal(shared.symbols, 12 + 2);
    assert.ok(shared.texts.includes("default-625") && shared.texts.includes("raised-3000"));
    assert.ok(shared.texts.some((t) => t.includes("seed-2026: Oregon")));
    const series = charts.find((c) => c.name === "time-series-raised-3000");
    assert.equal(series?.lines, 6, "one series per memory size");
    const cpu = charts.find((c) => c.name === "cpu-vs-throughput-raised-3000");
    assert.equal(cpu?.symbols, 35, "one point per successful invocation (36 minus 1 failure)");
    const tableRows = await page.$$eval("table", (tables) =>
      tables.map((t) => t.querySelectorAll("tbody tr").length),
    );
    // the summary (24 cells), then the study beside the run: 6 Tokyo + 6 Oregon iperf3 figures
    assert.deepEqual(tableRows, [24, 12]);
    const screenshot =
      process.env.LNBR_SCREENSHOT ?? join(tmpdir(), `lnbr-report-screenshot-${process.pid}.png`);
    await page.screenshot({ path: screenshot, fullPage: true });
    assert.ok((await stat(screenshot)).size > 50_000);
    console.log(`screenshot: ${screenshot}`);
    assert.deepEqual(problems, [], "no console errors or warnings");
    assert.deepEqual(requests, [], "no network requests: the page is self-contained");
  } finally {
    await browser.close();
  }
});
