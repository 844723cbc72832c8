import { type CodePackage, codePackage } from "../platforms/aws/agent-zip.js";
import { recorderCodePrefix } from "./schedule-naming.js";

/** The recorder's deployment package: dist/agent/recorder.mjs (from `npm run build`) as recorder.mjs. */
export function buildRecorderZip(
  bundlePath = new URL("../../dist/agent/recorder.mjs", import.meta.url),
): CodePackage {
  return codePackage(bundlePath, "recorder.mjs", recorderCodePrefix, "recorder");
}
