import { readFileSync } from "node:fs";
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

/**
 * How long RetransSegs must stand still before no repair of a loss is taken to be pending. A
 * retransmission is acknowledged a round trip after it left, and one lost again is sent again
 * once the acknowledgements of later segments show it lost (RACK: about a round trip later), so
 * a counter still for longer than a round trip has no repair in flight. The lab's round trip
 * under load is its tbf queue (20 ms) and a little; Lambda's to S3 a few ms.
 */
const REPAIR_QUIET_MS = 30;

/**
 * Whether the kernel has retransmitted lately on this namespace's connections (RetransSegs, read
 * synchronously: it is asked at interval closes). While a lost segment waits for its repair,
 * what follows it crosses the link and is SACKed, but the connection's acknowledged bytes stop
 * at the hole (snd_una; Node cannot read the SACKed bytes, TCP_INFO) and jump when the repair
 * arrives: a close in between reads the link's bytes one interval late.
 */
export class LossRepairs {
  private lastCount: number | undefined;
  private movedAtMs = Number.NEGATIVE_INFINITY;
  private available = true;

  /** Reads the counter now, so retransmits from the first interval on are seen. */
  constructor(
    private readonly snmpPath = "/proc/net/snmp",
    private readonly quietMs = REPAIR_QUIET_MS,
  ) {
    this.lastCount = this.readCount();
  }

  /**
   * Reads the counter at `nowMs` (a monotonic clock); true while it moved less than quietMs
   * ago, where a move is dated at the read that saw it. False where the file cannot be read.
   */
  repairing(nowMs: number): boolean {
    if (!this.available) return false;
    const count = this.readCount();
    if (count === undefined) {
      this.available = false;
      return false;
    }
    if (this.lastCount !== undefined && count !== this.lastCount) this.movedAtMs = nowMs;
    this.lastCount = count;
    return nowMs - this.movedAtMs < this.quietMs;
  }

  private readCount(): number | undefined {
    try {
      return parseRetransSegs(readFileSync(this.snmpPath, "utf8"));
    } catch {
      return undefined;
    }
  }
}
