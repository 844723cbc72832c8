/**
 * The iperf3 server is open to the internet (Lambda has no fixed source address), so the code
 * that reads a client's first bytes, authentication included, faces anyone: 3.19.1 fixes
 * CVE-2025-54349 (a heap overflow) and CVE-2025-54350 (a crash) in that code, per iperf3's
 * release notes. The server installs the distribution's package; this says when it is older.
 */
export const minimumIperf3Version = "3.19.1";

/** Compares dotted versions numerically ("3.9" < "3.19.1"); null when either is not one. */
function compareVersions(a: string, b: string): number | null {
  const parse = (text: string) => (/^\d+(\.\d+)*$/.test(text) ? text.split(".").map(Number) : null);
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return null;
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** A warning for deploy's output when the server's iperf3 may lack the fixes; null when it has them. */
export function iperf3VersionAdvice(version: string): string | null {
  const comparison = compareVersions(version, minimumIperf3Version);
  if (comparison !== null && comparison >= 0) return null;
  const why = `${minimumIperf3Version} fixes CVE-2025-54349 and CVE-2025-54350 in the code that reads a client's first bytes (authentication included), which anyone reaching the port can send`;
  if (comparison === null)
    return `the server's iperf3 reported version "${version}": could not tell whether it is ${minimumIperf3Version} or later; ${why}`;
  return `the server runs iperf3 ${version} (the distribution's package), older than ${minimumIperf3Version}: ${why}. The distribution may have backported the fixes (check its security advisories); the server lives only for --ttl-hours and each port takes one RSA-authenticated test at a time`;
}
