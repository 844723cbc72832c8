export function relativeSpecifiers(text: string): string[];
export function resolveSpecifier(from: string, specifier: string, known: Set<string>): string | null;
export function testsAffectedBy(
  changed: string[],
  sources: Map<string, string>,
  testFiles: string[],
): string[];
export function changedFiles(base?: string): string[];
export function readSources(): Map<string, string>;
