import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { buildZip } from "../platforms/aws/agent-zip.js";
import { recorderCodePrefix } from "./schedule-naming.js";

/** The recorder's deployment package: dist/agent/recorder.mjs (from `npm run build`) as recorder.mjs. */
export function buildRecorderZip(bundlePath = new URL("../../dist/agent/recorder.mjs", import.meta.url)): {
  zip: Buffer;
  sha256: string;
  key: string;
} {
  let source: Buffer;
  try {
    source = readFileSync(bundlePath);
  } catch {
    throw new Error(`recorder bundle not found at ${String(bundlePath)}: run \`npm run build\` first`);
  }
  const zip = buildZip([{ name: "recorder.mjs", data: source }]);
  const sha256 = createHash("sha256").update(zip).digest("hex");
  return { zip, sha256, key: `${recorderCodePrefix}${sha256}.zip` };
}
