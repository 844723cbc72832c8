import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { renderHtml } from "../../src/report/html-format.js";
import { buildReportModel } from "../../src/report/report-model.js";
import { loadReportModel } from "../../src/report/write-report.js";
import { fixtureStudy } from "../helpers/fixture-study.js";

/**
 * The HTML report in real headless Chromium (Debian package), offline, built from the study-like
 * fixture run (two lab targets, two probes, six sizes, three repetitions, one failure): no console
 * errors, no network; the verdict and the answer chart inside the first 1,280 x 800 screen; no
 * sideways scroll at 1,280 or 390 px; one colour per probe in every chart, table and verdict line.
 * Screenshots of both viewports are kept for a person to look at (directory printed;
 * LNBR_SCREENSHOT_DIR overrides it).
 */
const executablePath = "/usr/bin/chromium";
const skip = !existsSync(executablePath) && "no /usr/bin/chromium";
/** A real `run --preset quick` on a private lab, recorded with the console summary's tests. */
const quickRun = "test/fixtures/quick-run";
const skipQuick = skip || (!existsSync(join(quickRun, "manifest.json")) && `no recorded run in ${quickRun}`);
let work: string;
let htmlPath: string;
let quickHtmlPath: string;
let browser: BrowserContext;
const problems: string[] = [];
const requests: string[] = [];

before(async () => {
  if (skip) return;
  work = await mkdtemp(join(tmpdir(), "lnbr-html-"));
  const { manifest, records } = fixtureStudy();
  htmlPath = join(work, "report.html");
  await writeFile(htmlPath, await renderHtml(buildReportModel(manifest, records)));
  quickHtmlPath = join(work, "quick.html");
  if (!skipQuick) await writeFile(quickHtmlPath, await renderHtml(await loadReportModel(quickRun)));
  // a fresh profile per run (playwright wants it as launchPersistentContext's argument)
  browser = await chromium.launchPersistentContext(join(work, "profile"), {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});
after(async () => {
  await browser?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function open(width: number, height: number, path = htmlPath): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewportSize({ width, height });
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("request", (request) => {
    if (!request.url().startsWith("file://")) requests.push(request.url());
  });
  await page.goto(`file://${path}`, { waitUntil: "load" });
  return page;
}

interface ChartFacts {
  name: string;
  layout: string;
  width: number;
  lines: number;
  symbols: number;
  rules: number;
  texts: string[];
  /** Per legend (by its title): each entry's label, symbol fill, stroke and shape path. */
  legends: Array<{
    title: string;
    entries: Array<{ label: string; fill: string; stroke: string; d: string }>;
  }>;
  /** Fills and strokes of the data marks (not axes, legends or titles). */
  markColours: string[];
  /** Centres of the data symbols, for overlap checks. */
  centres: Array<[number, number]>;
}

// a string, not a function: tsx would wrap a function's inner helpers in __name(), unknown in the page
const chartFacts = `[...document.querySelectorAll("figure[data-chart]")]
  .filter((figure) => figure.getBoundingClientRect().width > 0)
  .map((figure) => {
    const data = (selector) =>
      [...figure.querySelectorAll(selector)].filter((e) => !e.closest(".role-axis, .role-legend, .role-title"));
    const colour = (e, name) => (e.getAttribute(name) || "").toLowerCase();
    const legends = [...figure.querySelectorAll("g.role-legend")].map((legend) => {
      const title = (legend.getAttribute("aria-label") || "").match(/titled '([^']*)'/)?.[1] ?? "";
      const symbols = [...legend.querySelectorAll("g.role-legend-symbol path")];
      const labels = [...legend.querySelectorAll("g.role-legend-label text")];
      return {
        title,
        entries: labels.map((label, i) => ({
          label: label.textContent ?? "",
          fill: colour(symbols[i], "fill"),
          stroke: colour(symbols[i], "stroke"),
          d: symbols[i]?.getAttribute("d") ?? "",
        })),
      };
    });
    const symbols = data("g.mark-symbol path");
    return {
      name: figure.getAttribute("data-chart"),
      layout: figure.getAttribute("data-layout"),
      width: figure.querySelector("svg")?.getBoundingClientRect().width ?? 0,
      lines: data("g.mark-line path").length,
      symbols: symbols.length,
      rules: data("g.mark-rule line").length,
      texts: [...figure.querySelectorAll("text")].map((t) => t.textContent ?? ""),
      legends,
      markColours: [...symbols, ...data("g.mark-rule line"), ...data("g.mark-line path")].flatMap((e) =>
        [colour(e, "fill"), colour(e, "stroke")].filter((c) => c && c !== "none" && c !== "transparent"),
      ),
      centres: symbols.map((e) => {
        const box = e.getBoundingClientRect();
        return [box.x + box.width / 2, box.y + box.height / 2];
      }),
    };
  })`;

async function openAllDetails(page: Page): Promise<void> {
  await page.evaluate(`document.querySelectorAll("details").forEach((d) => { d.open = true; })`);
}

async function widths(page: Page): Promise<{ scroll: number; client: number }> {
  return (await page.evaluate(
    "({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })",
  )) as { scroll: number; client: number };
}

function screenshotDir(): string {
  return process.env.LNBR_SCREENSHOT_DIR ?? join(tmpdir(), `lnbr-report-screenshots-${process.pid}`);
}

test("the HTML report renders offline in Chromium with every chart drawn", {
  skip,
  timeout: 120_000,
}, async () => {
  const page = await open(1280, 800);
  const charts = (await page.evaluate(chartFacts)) as ChartFacts[];
  assert.deepEqual(
    charts.map((c) => c.name),
    [
      "sustained-by-memory",
      ...["default-625", "raised-3000"].flatMap((t) => [
        `throughput-vs-memory-${t}`,
        `time-series-${t}`,
        `cpu-vs-memory-${t}`,
        `cost-per-gb-${t}`,
      ]),
    ],
    "the answer first, then four charts per target",
  );
  for (const chart of charts) {
    assert.equal(chart.layout, "wide", `${chart.name}: the wide layout shows at 1,280 px`);
    assert.ok(chart.width > 300, `${chart.name} is laid out`);
    assert.ok(
      chart.texts.some((t) => t.includes("EMULATED")),
      `${chart.name} is labelled emulated`,
    );
  }
  const answer = charts[0] as ChartFacts;
  // sustained: 2 targets x 2 probes x 6 sizes; bursts: all 12 on default-625, 10 on raised-3000
  // (at 10,240 MB the sustained rate reaches the burst's 2,800: nothing to detect); whiskers on
  // each sustained mark and one quota line per target
  assert.equal(answer.symbols, 24 + 22);
  assert.equal(answer.rules, 24 + 2);
  assert.equal(answer.lines, 0, "points at the sizes measured, no line suggesting a curve between them");
  // each quota labelled at the line's right end, on two lines ("quota" over "3,000 Mbit/s")
  for (const quota of ["625", "3,000"])
    assert.ok(
      answer.texts.some((t) => t === `quota${quota} Mbit/s`),
      `the ${quota} Mbit/s quota line is labelled`,
    );
  for (const size of ["1,024", "2,048", "3,072", "5,120", "8,192", "10,240"])
    assert.ok(answer.texts.includes(size), `the memory axis has a tick at ${size} MB, a size measured`);
  assert.ok(!answer.texts.includes("4,000"), "and none at a size nobody ran");
  const through = charts.find((c) => c.name === "throughput-vs-memory-raised-3000") as ChartFacts;
  // 2 probes x 6 sizes x (sustained, effective), min-max whiskers on the sustained ones, the quota
  // rule, and the published study's two "about 2,400" points (Oregon, iperf3 upload)
  assert.equal(through.symbols, 24 + 2);
  assert.equal(through.rules, 12 + 1);
  assert.ok(through.texts.includes("quota 3,000 Mbit/s"));
  assert.ok(through.texts.some((t) => t.startsWith("seed-2026 Oregon: iperf3 upload -P 4 -t 10s")));
  const series = charts.find((c) => c.name === "time-series-raised-3000");
  assert.equal(series?.lines, 6, "one panel per memory size");
  const cpu = charts.find((c) => c.name === "cpu-vs-memory-raised-3000");
  assert.equal(cpu?.symbols, 12 + 6, "a median per cell and the CPU share per size");
  const tableRows = await page.$$eval("table", (tables) =>
    tables.map((t) => `${t.className}:${t.querySelectorAll("tbody tr").length}`),
  );
  // per target a headline and a detail table of 12 cells, then the study: 6 Tokyo + 6 Oregon figures
  assert.deepEqual(tableRows, ["headline:12", "detail:12", "headline:12", "detail:12", "baseline:12"]);
  assert.deepEqual(problems, [], "no console errors or warnings");
  assert.deepEqual(requests, [], "no network requests: the page is self-contained");
  await page.close();
});

test("at 1,280 x 800 the verdict and the answer chart fill the first screen; nothing scrolls sideways at 1,280 or 390 px", {
  skip,
  timeout: 120_000,
}, async () => {
  const dir = screenshotDir();
  await mkdir(dir, { recursive: true });
  const desktop = await open(1280, 800);
  const boxes = (await desktop.evaluate(`(() => {
    const box = (selector) => {
      const r = document.querySelector(selector)?.getBoundingClientRect();
      return r ? { top: r.top, bottom: r.bottom, width: r.width } : null;
    };
    return {
      verdict: box("ul.verdict"),
      items: [...document.querySelectorAll("ul.verdict li")].map((li) => li.textContent),
      chart: box('.answer figure[data-layout="wide"] svg'),
      narrow: box('.answer figure[data-layout="narrow"] svg'),
      firstHeading: document.querySelector("h2")?.getBoundingClientRect().top ?? 0,
    };
  })()`)) as {
    verdict: { top: number; bottom: number } | null;
    items: string[];
    chart: { top: number; bottom: number; width: number } | null;
    narrow: { width: number } | null;
    firstHeading: number;
  };
  assert.ok(boxes.verdict && boxes.chart, "the page has a verdict and the answer chart");
  assert.equal(boxes.items.length, 4, "one verdict line per target and probe family");
  assert.match(boxes.items[0] ?? "", /^default-625 iperf3 upload: ~619 Mbit\/s sustained at every size/);
  assert.ok(boxes.verdict.top < boxes.chart.top, "the verdict comes before the chart");
  assert.ok(boxes.chart.bottom <= 800, `the answer chart ends at ${boxes.chart.bottom} px, inside 800`);
  assert.ok(boxes.chart.width > 900, "and it uses the width of the window");
  assert.equal(boxes.narrow?.width ?? 0, 0, "the phone layout is hidden");
  assert.ok(boxes.firstHeading >= boxes.chart.bottom, "nothing comes before the answer");
  await desktop.screenshot({ path: join(dir, "report-1280x800.png") });
  await desktop.screenshot({ path: join(dir, "report-1280-full.png"), fullPage: true });
  let size = await widths(desktop);
  assert.ok(size.scroll <= size.client, `1,280 px: scrollWidth ${size.scroll} <= clientWidth ${size.client}`);
  await openAllDetails(desktop);
  size = await widths(desktop);
  assert.ok(size.scroll <= size.client, `1,280 px, every table open: ${size.scroll} <= ${size.client}`);
  const tableWidths = await desktop.$$eval("table", (tables) =>
    tables.map((t) => t.getBoundingClientRect().right),
  );
  for (const right of tableWidths) assert.ok(right <= 1280, `a table ends at ${right} px`);
  await desktop.close();

  const phone = await open(390, 844);
  size = await widths(phone);
  assert.ok(size.scroll <= size.client, `390 px: scrollWidth ${size.scroll} <= clientWidth ${size.client}`);
  const layouts = (await phone.evaluate(
    `[...new Set([...document.querySelectorAll("figure[data-chart]")].filter((f) => f.getBoundingClientRect().width > 0).map((f) => f.getAttribute("data-layout")))]`,
  )) as string[];
  assert.deepEqual(layouts, ["narrow"], "a phone sees the narrow layout of every chart");
  const verdictTop = (await phone.evaluate(
    `document.querySelector("ul.verdict").getBoundingClientRect().top`,
  )) as number;
  assert.ok(verdictTop < 300, "the verdict leads on a phone too");
  await phone.screenshot({ path: join(dir, "report-390x844.png") });
  await phone.screenshot({ path: join(dir, "report-390-full.png"), fullPage: true });
  await openAllDetails(phone);
  size = await widths(phone);
  assert.ok(size.scroll <= size.client, `390 px, every table open: ${size.scroll} <= ${size.client}`);
  await phone.close();
  for (const name of ["report-1280x800.png", "report-390x844.png"])
    assert.ok((await stat(join(dir, name))).size > 20_000, `${name} has content`);
  console.log(`screenshots: ${dir}`);
  assert.deepEqual(problems, [], "no console errors or warnings");
});

test("each probe has one colour in every chart, table and verdict line; legends tell their marks apart", {
  skip,
  timeout: 120_000,
}, async () => {
  const colourOf = new Map<string, string>();
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    const page = await open(width, height);
    const charts = (await page.evaluate(chartFacts)) as ChartFacts[];
    for (const chart of charts) {
      const probeLegend = chart.legends.find((l) => l.title === "Probe");
      for (const entry of probeLegend?.entries ?? []) {
        const known = colourOf.get(entry.label);
        if (known) assert.equal(entry.fill, known, `${entry.label} in ${chart.name} (${chart.layout})`);
        else colourOf.set(entry.label, entry.fill);
      }
      const probeColours = new Set(colourOf.values());
      // data marks are in a probe's colour, or neutral: the quota's grey, the study's black, the
      // CPU share's near-black (never another hue a reader could take for a probe)
      const neutral = new Set(["#555", "#111", "#222", "#333", "#000", "#f2c14e"]);
      for (const mark of new Set(chart.markColours))
        assert.ok(
          probeColours.has(mark) || neutral.has(mark),
          `${chart.name}: mark colour ${mark} is a probe's or neutral`,
        );
      // no "two identical dots": the entries of every legend differ in colour or shape
      for (const legend of chart.legends) {
        const looks = legend.entries.map((e) => `${e.fill}|${e.stroke}|${e.d}`);
        assert.equal(
          new Set(looks).size,
          looks.length,
          `${chart.name}: the ${legend.title} legend's symbols differ`,
        );
      }
      if (chart.name === "sustained-by-memory" || chart.name.startsWith("throughput-vs-memory")) {
        // side by side within a size: no two marks share a spot
        for (let i = 0; i < chart.centres.length; i++)
          for (let j = i + 1; j < chart.centres.length; j++) {
            const [ax, ay] = chart.centres[i] as [number, number];
            const [bx, by] = chart.centres[j] as [number, number];
            assert.ok(
              Math.hypot(ax - bx, ay - by) > 2,
              `${chart.name} (${chart.layout}): marks ${i} and ${j} overlap`,
            );
          }
      }
    }
    const rows = (await page.evaluate(
      `[...document.querySelectorAll("table.headline tbody tr")].map((tr) => [tr.querySelector("td span[title]")?.textContent, tr.querySelector(".swatch")?.style.background])`,
    )) as Array<[string, string]>;
    const verdictSwatches = (await page.evaluate(
      `[...document.querySelectorAll("ul.verdict .swatch")].map((s) => s.style.background)`,
    )) as string[];
    const hex = (rgb: string) =>
      `#${(rgb.match(/\d+/g) ?? []).map((n) => Number(n).toString(16).padStart(2, "0")).join("")}`;
    for (const [name, background] of rows)
      assert.equal(
        hex(background),
        colourOf.get(name)?.toLowerCase(),
        `table row of ${name} has its chart colour`,
      );
    assert.deepEqual(
      verdictSwatches.map(hex),
      ["iperf3 up -P4", "s3-get conc 4", "iperf3 up -P4", "s3-get conc 4"].map((n) => colourOf.get(n)),
      "each verdict line carries its probe's colour",
    );
    await page.close();
  }
  assert.deepEqual([...colourOf.keys()], ["iperf3 up -P4", "s3-get conc 4"]);
  assert.notEqual(colourOf.get("iperf3 up -P4"), colourOf.get("s3-get conc 4"));
  assert.deepEqual(problems, [], "no console errors or warnings");
});

test("the page of a real recorded quick run: ten verdict lines and the chart in the first screen, no sideways scroll", {
  skip: skipQuick,
  timeout: 120_000,
}, async () => {
  const dir = screenshotDir();
  await mkdir(dir, { recursive: true });
  const desktop = await open(1280, 800, quickHtmlPath);
  const first = (await desktop.evaluate(`({
    lines: document.querySelectorAll("ul.verdict li").length,
    chartBottom: document.querySelector('.answer figure[data-layout="wide"] svg').getBoundingClientRect().bottom,
  })`)) as { lines: number; chartBottom: number };
  assert.equal(first.lines, 10, "two targets x five probe families");
  assert.ok(first.chartBottom <= 800, `the answer chart ends at ${first.chartBottom} px, inside 800`);
  await openAllDetails(desktop);
  let size = await widths(desktop);
  assert.ok(size.scroll <= size.client, `1,280 px: ${size.scroll} <= ${size.client}`);
  await desktop.screenshot({ path: join(dir, "quick-run-1280x800.png") });
  await desktop.close();
  const phone = await open(390, 844, quickHtmlPath);
  await openAllDetails(phone);
  size = await widths(phone);
  assert.ok(size.scroll <= size.client, `390 px: ${size.scroll} <= ${size.client}`);
  await phone.screenshot({ path: join(dir, "quick-run-390x844.png") });
  await phone.close();
  console.log(`screenshots: ${dir}`);
  assert.deepEqual(problems, [], "no console errors or warnings");
});
