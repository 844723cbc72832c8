import { readFileSync, writeFileSync } from "node:fs";

/**
 * The file through which the lab tells its running iperf3 servers the per-flow cap of the
 * profile in use: `{ "flowBitsPerSecond": N | null }`. The servers read it at the start of each
 * test, so switching profiles needs no restart. A missing file means no cap.
 */
export interface FlowCapFile {
  flowBitsPerSecond: number | null;
}

export function readFlowCapFile(path: string): number | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<FlowCapFile>;
  const value = parsed.flowBitsPerSecond;
  if (value === null || value === undefined) return null;
  if (typeof value !== "number" || !(value > 0)) {
    throw new Error(
      `${path}: flowBitsPerSecond must be a positive number or null, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export function writeFlowCapFile(path: string, flowBitsPerSecond: number | null): void {
  const content: FlowCapFile = { flowBitsPerSecond };
  writeFileSync(path, `${JSON.stringify(content)}\n`, { mode: 0o644 });
}
