/**
 * The one root gate of the lab's tests: they create network namespaces, qdiscs and cgroups,
 * which needs root. Without it they are skipped, loudly (a line on stderr naming the file,
 * and the skip reason in the report), never failed and never silently passed.
 */
export function rootSkip(what: string): false | string {
  if (process.getuid?.() === 0) return false;
  const reason = `SKIPPED without root: ${what} needs root (network namespaces, tc, cgroups); run the tests with sudo`;
  console.error(`\n*** ${reason} ***\n`);
  return reason;
}
