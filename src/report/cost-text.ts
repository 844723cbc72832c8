import type { CostEstimate, CostLine } from "../results/cost-estimate.js";
import { textTable } from "./tables.js";
import { wrap } from "./text-layout.js";

/** Where a source's text starts: its wrapped lines align there. */
const SOURCE_TEXT_COLUMN = "  source: ".length;

const labels: Record<CostLine["item"], string> = {
  "lambda-duration": "Lambda duration",
  "lambda-requests": "Lambda requests",
  "ec2-server": "EC2 server",
  "public-ipv4": "Public IPv4",
  "data-transfer": "Data transfer",
};

/**
 * The estimate as the terminal shows it: one line per item (label, quantity, price in columns),
 * then the total and what it lacks, then where the prices came from; lines longer than `width`
 * wrap under their own text.
 */
export function formatCostEstimate(estimate: CostEstimate, width = 100): string {
  const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;
  const rows = estimate.lines.map((line) => [
    labels[line.item],
    line.quantity,
    line.usd === null ? "price not in table" : `${usd(line.usd)}${line.verified ? "" : " (verify)"}`,
  ]);
  const total =
    estimate.missing.length > 0
      ? `at least ${usd(estimate.knownUsd)} (+ ${estimate.missing.map((item) => labels[item]).join(", ")}: not in the price table)`
      : usd(estimate.knownUsd);
  // the server, the largest cost of a run, always says where its figure came from
  const noted = (line: CostLine) => line.usd === null || !line.verified || line.item === "ec2-server";
  const notes = [...new Set(estimate.lines.filter(noted).map((line) => line.source))];
  return [
    ...wrap(`Cost estimate for ${estimate.region} (list prices; free tier not counted):`, width, "  "),
    ...itemLines(rows, total, width),
    ...notes.flatMap((note) => wrap(`  source: ${note}`, width, " ".repeat(SOURCE_TEXT_COLUMN))),
  ].join("\n");
}

/**
 * The items as a table wrapping under the quantity column, the total under the prices where
 * that fits, else beside its label, wrapped under itself.
 */
function itemLines(rows: string[][], total: string, width: number): string[] {
  const layout = { header: false, indent: "  ", width, continueUnder: 1 };
  const items = textTable(["", "", ""], rows, layout);
  const underPrices = textTable(["", "", ""], [...rows, ["Total", "", total]], {
    indent: "  ",
    header: false,
  }).at(-1);
  if (underPrices !== undefined && underPrices.length <= width) return [...items, underPrices];
  // the label column as wide as with the items, so the total starts where the quantities do
  const labelsOnly = rows.map((row) => [row[0] as string, ""]);
  return [...items, ...textTable(["", ""], [...labelsOnly, ["Total", total]], layout).slice(rows.length)];
}
