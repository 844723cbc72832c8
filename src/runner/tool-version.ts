import { readFileSync } from "node:fs";

/** The package version, read from package.json (two levels up from both src/runner and dist/runner). */
export function toolVersion(): string {
  try {
    const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
    return (JSON.parse(text) as { version: string }).version;
  } catch {
    return "unknown";
  }
}
