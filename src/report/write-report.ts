import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { readManifest, readRecords } from "../results/run-directory.js";
import { reportFormats, runReportFormats } from "./formats.js";
import { buildReportModel, defaultBaselineName, type ReportModel } from "./report-model.js";

/** Reads a run directory into a report model (the report reads records, never live objects). */
export async function loadReportModel(
  runDir: string,
  baselineName: string | null = defaultBaselineName,
): Promise<ReportModel> {
  const manifest = await readManifest(runDir);
  const { records } = await readRecords(runDir);
  return buildReportModel(manifest, records, undefined, baselineName);
}

/** Renders the formats and writes their files under `outDir`; returns the paths written. */
export async function writeReport(
  model: ReportModel,
  formatNames: string[],
  outDir: string,
): Promise<string[]> {
  const written: string[] = [];
  for (const name of formatNames) {
    const format = reportFormats[name];
    if (!format) throw new Error(`unknown format ${name}`);
    for (const file of await format.render(model)) {
      const path = join(outDir, file.fileName);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content);
      written.push(path);
    }
  }
  return written;
}

/** The run's report files (runReportFormats) under `outDir`, as `run` writes them; returns the paths written. */
export function writeRunReport(model: ReportModel, outDir: string): Promise<string[]> {
  return writeReport(model, runReportFormats, outDir);
}
