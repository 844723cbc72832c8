import { closeSync, openSync, readSync } from "node:fs";

/**
 * Bytes a sender's kernel has accepted on a set of TCP connections that the peer has not
 * acknowledged yet: write_seq - snd_una, what ioctl(SIOCOUTQ) returns and what the kernel prints
 * as `tx_queue` in /proc/net/tcp and /proc/net/tcp6 (per network namespace: on Lambda the
 * microVM's, in the lab the environment's). Node exposes neither SIOCOUTQ nor TCP_INFO, so this
 * table is the one place a Node sender can learn how much of what it handed the kernel is
 * still in the send buffer rather than across the link.
 *
 * A sender that counts bytes as the kernel accepts them (iperf3 counts write() results, the
 * probes count write callbacks) runs ahead of the link by the send buffer's contents; at the
 * start of a transfer that is the initial fill of the buffer (several MB after autotuning), all
 * of it credited to the first interval. Subtracting the unacknowledged bytes at every interval
 * close turns "accepted" into "acknowledged by the peer", which no link can outrun.
 *
 * Connections are matched by local and remote port (the table's addresses are in the host's
 * byte order, its ports are not ambiguous); two of our connections never share both ports.
 */
export class UnacknowledgedBytes {
  /** "LLLL:RRRR": local and remote port in the table's upper-case hex. */
  private readonly keys = new Set<string>();
  private readonly buffer = Buffer.allocUnsafe(64 * 1024);
  private available = true;

  constructor(private readonly tables: readonly string[] = ["/proc/net/tcp", "/proc/net/tcp6"]) {}

  /** Adds a connection (once connected: both ports known). Returns false when it was not. */
  track(localPort: number | undefined, remotePort: number | undefined): boolean {
    if (!localPort || !remotePort) return false;
    this.keys.add(`${hexPort(localPort)}:${hexPort(remotePort)}`);
    return true;
  }

  get tracked(): number {
    return this.keys.size;
  }

  /**
   * The tracked connections' unacknowledged bytes now; null when the table cannot be read
   * (not Linux, /proc not mounted), and from then on, so a caller falls back to what the
   * kernel accepted. Synchronous and allocation-light: it runs at every interval close.
   */
  read(): number | null {
    if (!this.available) return null;
    if (this.keys.size === 0) return 0;
    let total = 0;
    let readAny = false;
    for (const table of this.tables) {
      const text = this.readTable(table);
      if (text === null) continue;
      readAny = true;
      total += sumTxQueue(text, this.keys);
    }
    if (!readAny) this.available = false;
    return readAny ? total : null;
  }

  private readTable(path: string): string | null {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return null;
    }
    try {
      // procfs gives the table in page-sized reads; a large table is read in several
      let text = "";
      for (;;) {
        const count = readSync(fd, this.buffer, 0, this.buffer.length, null);
        if (count === 0) break;
        text += this.buffer.toString("latin1", 0, count);
      }
      return text;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }
}

function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, "0");
}

/**
 * Sums the tx_queue column of the rows whose local and remote ports are in `keys`. A row:
 * `  sl  local_address rem_address   st tx_queue:rx_queue ...`, addresses as HEX:PORT.
 */
export function sumTxQueue(table: string, keys: ReadonlySet<string>): number {
  let total = 0;
  for (const line of table.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    const remote = fields[2];
    const queues = fields[4];
    if (!local || !remote || !queues) continue;
    const key = `${local.slice(local.lastIndexOf(":") + 1)}:${remote.slice(remote.lastIndexOf(":") + 1)}`;
    if (!keys.has(key)) continue;
    const txQueue = Number.parseInt(queues.slice(0, queues.indexOf(":")), 16);
    if (Number.isFinite(txQueue)) total += txQueue;
  }
  return total;
}
