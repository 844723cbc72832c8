import type { CostEstimate, CostLine } from "../results/cost-estimate.js";
import { wrap } from "./text-layout.js";

/** Columns of an item's label and of its quantity. */
const LABEL_WIDTH = 16;
const QUANTITY_WIDTH = 34;
/** Where an item's quantity and a source's text start: their wrapped lines align there. */
const ITEM_TEXT_COLUMN = 2 + LABEL_WIDTH + 1;
const SOURCE_TEXT_COLUMN = "  source: ".length;

const labels: Record<CostLine["item"], string> = {
  "lambda-duration": "Lambda duration",
  "lambda-requests": "Lambda requests",
  "ec2-server": "EC2 server",
  "public-ipv4": "Public IPv4",
  "data-transfer": "Data transfer",
};

/**
 * The estimate as the terminal shows it: one line per item, then the total and what it lacks,
 * then where the prices came from; lines longer than `width` wrap under their own text.
 */
export function formatCostEstimate(estimate: CostEstimate, width = 100): string {
  const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;
  const rows = estimate.lines.map((line) => {
    const price =
      line.usd === null ? "price not in table" : `${usd(line.usd)}${line.verified ? "" : " (verify)"}`;
    return `  ${labels[line.item].padEnd(LABEL_WIDTH)} ${line.quantity.padEnd(QUANTITY_WIDTH)} ${price}`;
  });
  const total =
    estimate.missing.length > 0
      ? `at least ${usd(estimate.knownUsd)} (+ ${estimate.missing.map((item) => labels[item]).join(", ")}: not in the price table)`
      : usd(estimate.knownUsd);
  // the server, the largest cost of a run, always says where its figure came from
  const noted = (line: CostLine) => line.usd === null || !line.verified || line.item === "ec2-server";
  const notes = [...new Set(estimate.lines.filter(noted).map((line) => line.source))];
  return [
    ...wrap(`Cost estimate for ${estimate.region} (list prices; free tier not counted):`, width, "  "),
    ...rows.flatMap((row) => wrap(row, width, " ".repeat(ITEM_TEXT_COLUMN))),
    ...totalLines(total, width),
    ...notes.flatMap((note) => wrap(`  source: ${note}`, width, " ".repeat(SOURCE_TEXT_COLUMN))),
  ].join("\n");
}

/** The total under the prices where it fits, else beside its label, wrapped under itself. */
function totalLines(total: string, width: number): string[] {
  const underPrices = `  ${"Total".padEnd(LABEL_WIDTH)} ${"".padEnd(QUANTITY_WIDTH)} ${total}`;
  if (underPrices.length <= width) return [underPrices];
  return wrap(`  ${"Total".padEnd(LABEL_WIDTH)} ${total}`, width, " ".repeat(ITEM_TEXT_COLUMN));
}
