import type { ReportModel } from "./report-model.js";

/** One file a format produces, relative to the output folder. */
export interface ReportFile {
  fileName: string;
  content: string | Buffer;
}

/** One output format of the report (one file per format, hyperfine-style). */
export interface ReportFormat {
  readonly name: string;
  readonly description: string;
  render(model: ReportModel): Promise<ReportFile[]>;
}
