import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * argv after `process.execPath` that runs one of the tests' TypeScript scripts (`script`, built
 * from the caller's import.meta.url) in a child process: its compiled JavaScript when the caller
 * runs compiled from the test run's mirror (scripts/compiled-tests.mjs writes each .js beside its
 * .ts), else the .ts through tsx (a test run by hand from source). A CLI child through tsx cost
 * about twice its CPU compiled (2026-12-06).
 */
export function scriptArgv(script: URL): string[] {
  const path = fileURLToPath(script);
  const compiled = path.replace(/\.ts$/, ".js");
  return compiled !== path && existsSync(compiled) ? [compiled] : ["--import", "tsx", path];
}
