import { readFile } from "node:fs/promises";

/**
 * TCP retransmitted segments of this network namespace (RetransSegs in /proc/net/snmp).
 * The counter is per namespace, so on Lambda (one microVM) and in the lab (one netns per
 * environment) its delta over a test is the test's own retransmits. Undefined where the
 * file is missing (non-Linux).
 */
export async function readRetransSegs(snmpPath = "/proc/net/snmp"): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(snmpPath, "utf8");
  } catch {
    return undefined;
  }
  return parseRetransSegs(text);
}

export function parseRetransSegs(snmpText: string): number | undefined {
  const tcpLines = snmpText.split("\n").filter((line) => line.startsWith("Tcp:"));
  const [header, values] = tcpLines;
  if (!header || !values) return undefined;
  const names = header.trim().split(/\s+/);
  const numbers = values.trim().split(/\s+/);
  const index = names.indexOf("RetransSegs");
  if (index < 0) return undefined;
  const value = Number(numbers[index]);
  return Number.isFinite(value) ? value : undefined;
}

/** Starts counting; the returned function gives the retransmits since the start (null if unknown). */
export async function startRetransmitCounter(): Promise<() => Promise<number | null>> {
  const start = await readRetransSegs();
  return async () => {
    const end = await readRetransSegs();
    return start === undefined || end === undefined ? null : Math.max(0, end - start);
  };
}
