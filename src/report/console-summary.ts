import type { CellStatistics } from "../results/analysis.js";
import type { Spread } from "../results/statistics.js";
import { burstRateText } from "./burst-text.js";
import { rateWords } from "./rate-words.js";
import type { ReportModel } from "./report-model.js";
import { spreadMinimumRepetitions } from "./statistics-display.js";
import { measuringCells } from "./summary-rows.js";
import { renderPivot, wrap } from "./text-layout.js";
import { formatMbps, formatNumber } from "./units.js";
import { buildVerdicts, missingReason } from "./verdict.js";

/**
 * The console summary: the verdict, then one row pair per target x probe with the memory sizes as
 * columns (sustained median in the cell, burst / avg incl. burst below it), marks for cells to read
 * with care, and a warning naming the cells with too few repetitions. Fits `width`. Pure.
 */

/** Marks after a cell's number; the legend lists the ones that appear. */
export const cellMarks: Array<{ mark: string; meaning: string; applies: (cell: CellStatistics) => boolean }> =
  [
    {
      mark: "*",
      meaning: `n<${spreadMinimumRepetitions} (no spread)`,
      applies: (c) => repetitionsOf(c) > 0 && repetitionsOf(c) < spreadMinimumRepetitions,
    },
    {
      mark: "?",
      meaning: "sustained unconfirmed (no quota known to tell it from a long burst)",
      applies: (c) => c.sustained !== null && c.ceiling === null,
    },
    {
      mark: "c",
      meaning: "CPU-bound (the client's limit, maybe not the network's)",
      applies: (c) => c.cpuBound === true || c.bottleneck?.kind === "cpu",
    },
    {
      mark: "f",
      meaning: "held by a per-connection (flow) cap",
      applies: (c) => c.bottleneck?.kind === "flow",
    },
    {
      mark: "s",
      meaning: "held by the server, not the environment",
      applies: (c) => c.bottleneck?.kind === "server",
    },
    {
      mark: "!",
      meaning: "incomplete (failed or missing repetitions)",
      applies: (c) => (c.effective?.n ?? 0) < c.plannedRepetitions,
    },
  ];

/** The repetitions behind the cell's headline number: sustained when it has one, else the average. */
function repetitionsOf(cell: CellStatistics): number {
  return cell.sustained?.n ?? cell.effective?.n ?? 0;
}

function marksOf(cell: CellStatistics): string {
  return cellMarks
    .filter((m) => m.applies(cell))
    .map((m) => m.mark)
    .join("");
}

/** "±2%": half the min-max range of the repetitions over the median; only from n >= 3. */
export function spreadPercentText(spread: Spread): string {
  if (spread.n < spreadMinimumRepetitions || spread.median === 0) return "";
  return ` ±${formatNumber(((spread.max - spread.min) / 2 / spread.median) * 100)}%`;
}

/** The cell's first line: the median sustained rate (or why there is none), its spread and marks. */
export function sustainedCellText(cell: CellStatistics): string {
  const head = cell.sustained
    ? `${formatMbps(cell.sustained.median)}${spreadPercentText(cell.sustained)}`
    : cell.effective
      ? missingReason(cell)
      : "failed";
  return `${head}${marksOf(cell)}`;
}

/** The cell's second line: "2,650/864" = burst / avg incl. burst; "none" or "?" when no burst was seen. */
export function burstAverageCellText(cell: CellStatistics): string {
  if (!cell.effective) return "";
  const burst = cell.burst
    ? burstRateText(cell.burst.median, cell.burstBounds?.peak ?? "measured")
    : cell.burstFound.detected === 0 && cell.burstFound.none > 0
      ? "none"
      : "?";
  return `${burst}/${formatMbps(cell.effective.median)}`;
}

function shortName(model: ReportModel, cell: CellStatistics, multiArch: boolean): string {
  const name = model.probeNames?.[cell.probeKey]?.short ?? cell.probeLabel;
  return multiArch ? `${name} ${cell.arch}` : name;
}

/** The pivoted table: a block per target, a row pair per probe, a column per memory size. */
export function summaryPivotLines(model: ReportModel, width: number): string[] {
  const cells = measuringCells(model);
  // a run of latency (or info) cells only has no rate to tabulate
  if (cells.length === 0) return [];
  const sizes = [...new Set(cells.map((c) => c.memoryMb))].sort((a, b) => a - b);
  const multiArch = new Set(cells.map((c) => c.arch)).size > 1;
  const blocks = model.targets
    .map((target) => {
      const mine = cells.filter((c) => c.targetKey === target.key);
      const rows = new Map<string, CellStatistics[]>();
      for (const cell of mine) {
        const key = `${cell.arch}|${cell.probeKey}`;
        rows.set(key, [...(rows.get(key) ?? []), cell]);
      }
      const quota = target.quotaBitsPerSecond
        ? `, quota ${formatMbps(target.quotaBitsPerSecond)} Mbit/s`
        : "";
      return {
        heading: `${target.name}${quota}`,
        rows: [...rows.values()].flatMap((group) => {
          const at = (size: number) => group.find((c) => c.memoryMb === size);
          return [
            {
              label: shortName(model, group[0] as CellStatistics, multiArch),
              cells: sizes.map((s) => {
                const cell = at(s);
                return cell ? sustainedCellText(cell) : "";
              }),
            },
            {
              label: "",
              cells: sizes.map((s) => {
                const cell = at(s);
                return cell ? burstAverageCellText(cell) : "";
              }),
            },
          ];
        }),
      };
    })
    .filter((b) => b.rows.length > 0);
  const header = wrap(
    `Summary: ${rateWords.sustained} Mbit/s (median) per memory size; below it ${rateWords.burst} / ${rateWords.average}.`,
    width,
  );
  const columns = sizes.map((s) => `${formatNumber(s)} MB`);
  return [...header, "", ...renderPivot(columns, blocks, width, "Probe")];
}

/** The legend of the marks that appear, and one warning line naming the cells without a spread. */
export function summaryNotes(model: ReportModel, width: number): string[] {
  const cells = measuringCells(model);
  const used = cellMarks.filter((m) => cells.some((c) => m.applies(c)));
  const lines: string[] = [];
  if (used.length > 0)
    lines.push(...wrap(`Marks: ${used.map((m) => `${m.mark} ${m.meaning}`).join("; ")}.`, width, "  "));
  const few = tooFewForSpread(cells);
  if (few.length > 0) lines.push(...wrap(fewRepetitionsWarning(model, cells, few), width, "  "));
  return lines;
}

/** Cells measured fewer times than a spread needs (cells with no success are not among them). */
export function tooFewForSpread(cells: CellStatistics[]): CellStatistics[] {
  return cells.filter((c) => repetitionsOf(c) > 0 && repetitionsOf(c) < spreadMinimumRepetitions);
}

/** "Warning: fewer than 3 repetitions (no spread shown) in 28 of 30 cells: default-625 iperf3 up -P4 (every size), ..." */
export function fewRepetitionsWarning(
  model: ReportModel,
  cells: CellStatistics[],
  few: CellStatistics[],
): string {
  if (few.length === cells.length)
    return `Warning: every cell has fewer than ${spreadMinimumRepetitions} repetitions (no spread shown); raise \`repetitions\` in the plan to see one.`;
  const head = `Warning: fewer than ${spreadMinimumRepetitions} repetitions (no spread shown) in ${few.length} of ${cells.length} cells`;
  const multiArch = new Set(cells.map((c) => c.arch)).size > 1;
  const groups = new Map<string, { name: string; sizes: number[]; of: number }>();
  for (const cell of cells) {
    const key = `${cell.targetKey}|${cell.arch}|${cell.probeKey}`;
    const group = groups.get(key) ?? {
      name: `${cell.target} ${shortName(model, cell, multiArch)}`,
      sizes: [],
      of: 0,
    };
    group.of += 1;
    if (few.includes(cell)) group.sizes.push(cell.memoryMb);
    groups.set(key, group);
  }
  const listed = [...groups.values()]
    .filter((g) => g.sizes.length > 0)
    .map(
      (g) =>
        `${g.name} (${g.sizes.length === g.of ? "every size" : g.sizes.map((s) => `${formatNumber(s)} MB`).join(", ")})`,
    );
  return `${head}: ${listed.join(", ")}.`;
}

/** The verdict block: one wrapped line per target and probe family. */
export function verdictLines(model: ReportModel, width: number): string[] {
  const verdicts = buildVerdicts(model);
  if (verdicts.length === 0) return [];
  return ["Verdict", ...verdicts.flatMap((v) => wrap(`  ${v.text}`, width, "      "))];
}
