import { closeSync, openSync, readSync } from "node:fs";
import { isIPv6 } from "node:net";
import type { RunningTotal } from "./interval-sampler.js";
import type { LossRepairs } from "./retransmits.js";

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
 * A receiving connection's row gives the other side of the same fact: `rx_queue`, what arrived
 * in order and the reader has not taken yet (rcv_nxt - copied_seq). A reader that counts its
 * reads runs behind the link by that much; starved of CPU, by a whole receive buffer, and then
 * its reads of the backlog show as a burst no link gave. Tracked as `receiving`, a connection's
 * unread bytes are read with the same walk of the table (`unreadBytes`).
 *
 * Connections are matched by local and remote port (the table's addresses are in the host's
 * byte order, its ports are not ambiguous); two of our connections never share both ports.
 */
export class UnacknowledgedBytes {
  /** Per table: each connection ("LLLL:RRRR", local and remote port in the table's upper-case hex) and its direction. */
  private readonly keys = new Map<string, Map<string, QueueDirection>>();
  private readonly buffer = Buffer.allocUnsafe(64 * 1024);
  private available = true;
  private lastReadMs = Number.NEGATIVE_INFINITY;
  private lastValue = 0;
  private lastUnread: number | null = null;
  private tracksReceiving = false;
  private freshReads = 0;
  private tablesReadAtMs: number | null = null;
  /** The last read's figure per connection ("LLLL:RRRR"), for those in a table: unacknowledged, or unread when receiving. */
  private readonly byConnection = new Map<string, number>();

  constructor(
    private readonly tables: { ipv4: string; ipv6: string } = {
      ipv4: "/proc/net/tcp",
      ipv6: "/proc/net/tcp6",
    },
    /**
     * A read this recent is reused. The sampler reads its total once when a timer fires and
     * again when the interval closes a few event-loop turns later, and after a stall on every
     * turn while a backlog drains (up to an interval of turns): a read costs the kernel about
     * 0.9 ms of CPU, which a CPU-starved environment cannot spend a few hundred times over.
     * 5 ms is 2 % of a 250 ms interval; what it shifts goes to the next interval.
     */
    private readonly reuseMs = 5,
  ) {}

  /**
   * Adds a connection (once connected: both ports known); returns false when it was not. The
   * remote address picks the table: reading one costs the kernel a walk of its whole connection
   * hash (about 0.9 ms of CPU here), so a table none of our connections is in is not read.
   * `receiving`: the connection's unread bytes are counted (`unreadBytes`), not its unacknowledged.
   */
  track(
    localPort: number | undefined,
    remotePort: number | undefined,
    remoteAddress?: string,
    direction: QueueDirection = "sending",
  ): boolean {
    if (!localPort || !remotePort) return false;
    const key = `${hexPort(localPort)}:${hexPort(remotePort)}`;
    this.lastReadMs = Number.NEGATIVE_INFINITY; // a new connection: read afresh
    const tables =
      remoteAddress === undefined
        ? [this.tables.ipv4, this.tables.ipv6]
        : [isIPv6(remoteAddress) ? this.tables.ipv6 : this.tables.ipv4];
    for (const table of tables) {
      let keys = this.keys.get(table);
      if (!keys) {
        keys = new Map();
        this.keys.set(table, keys);
      }
      keys.set(key, direction);
    }
    if (direction === "receiving") this.tracksReceiving = true;
    return true;
  }

  /**
   * The tracked connections' unacknowledged bytes now; null when the table cannot be read
   * (not Linux, /proc not mounted), and from then on, so a caller falls back to what the
   * kernel accepted. Synchronous: it runs at every interval close (4 a second). `fresh` (an
   * interval's close) reads the tables whatever the last read's age.
   */
  read(fresh = false): number | null {
    if (!this.available) return null;
    const nowMs = performance.now();
    if (!fresh && nowMs - this.lastReadMs < this.reuseMs) return this.lastValue;
    const texts: Array<[string, ReadonlyMap<string, QueueDirection>]> = [];
    for (const [table, keys] of this.keys) {
      const text = this.readTable(table);
      if (text === null) {
        this.available = false;
        return null;
      }
      texts.push([text, keys]);
    }
    // the figure is the kernel's at its read: parsing after the stamp keeps it out of the window
    this.tablesReadAtMs = performance.now();
    let total = 0;
    let unread = 0;
    this.byConnection.clear();
    for (const [text, keys] of texts) {
      const queues = sumQueues(text, keys, this.byConnection);
      total += queues.unacknowledged;
      unread += queues.unread;
    }
    this.lastReadMs = nowMs;
    this.lastValue = total;
    this.lastUnread = this.tracksReceiving ? unread : null;
    this.freshReads += 1;
    return total;
  }

  /**
   * What the receiving connections' kernels held unread at the last read (`read()`); null while
   * none is tracked, before a read, or where the table cannot be read.
   */
  get unreadBytes(): number | null {
    return this.available ? this.lastUnread : null;
  }

  /** performance.now() when the last figure's tables had been read (null before any read). */
  get readAtMs(): number | null {
    return this.tablesReadAtMs;
  }

  /** One connection's figure at the last read (unacknowledged, or unread when receiving); undefined when not in the tables. */
  of(localPort: number | undefined, remotePort: number | undefined): number | undefined {
    if (!localPort || !remotePort) return undefined;
    return this.byConnection.get(`${hexPort(localPort)}:${hexPort(remotePort)}`);
  }

  /** How many times the tables were really read: the same count means the same moment. */
  get readCount(): number {
    return this.freshReads;
  }

  private readTable(path: string): string | null {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return null;
    }
    try {
      // Read to the end: a short read does not mean the table ended. Stopping at the first
      // read that left room (it saved one walk of the kernel's connection hash, ~0.5 ms) lost
      // our row when the table was long: the whole-suite run, with many closed connections
      // still listed, read 0 for a connection holding megabytes unacknowledged.
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

/** Which queue of a connection counts: a sender's unacknowledged bytes, a receiver's unread ones. */
export type QueueDirection = "sending" | "receiving";

/**
 * Sums the tracked rows' queues: tx_queue for a sending connection, rx_queue for a receiving one
 * (each row's figure added to `byConnection` too, when given). A row:
 * `  sl  local_address rem_address   st tx_queue:rx_queue ...`, addresses as HEX:PORT.
 */
export function sumQueues(
  table: string,
  keys: ReadonlyMap<string, QueueDirection>,
  byConnection?: Map<string, number>,
): { unacknowledged: number; unread: number } {
  const sums = { unacknowledged: 0, unread: 0 };
  for (const line of table.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const local = fields[1];
    const remote = fields[2];
    const queues = fields[4];
    if (!local || !remote || !queues) continue;
    const key = `${local.slice(local.lastIndexOf(":") + 1)}:${remote.slice(remote.lastIndexOf(":") + 1)}`;
    const direction = keys.get(key);
    if (!direction) continue;
    const colon = queues.indexOf(":");
    const bytes = Number.parseInt(
      direction === "sending" ? queues.slice(0, colon) : queues.slice(colon + 1),
      16,
    );
    if (!Number.isFinite(bytes)) continue;
    if (direction === "sending") sums.unacknowledged += bytes;
    else sums.unread += bytes;
    byConnection?.set(key, (byConnection.get(key) ?? 0) + bytes);
  }
  return sums;
}

/**
 * A running count of the bytes that crossed the link, for IntervalSampler: what the kernel
 * accepted on the sending connections (`sent`) minus what it holds unacknowledged, plus what was
 * received. It never goes back: senders count a write when it completes, but the kernel's figure
 * already holds the part of a write it took, so the difference can dip by up to a write per
 * connection; a dip would show as a negative interval.
 *
 * `sent` and the kernel's figure are taken at the same moment: when the table read is a reused
 * one (UnacknowledgedBytes' 5 ms), what the kernel took since is not counted yet, as far as that
 * read knows it is all still in the send buffer. Counted against the older read, 456 KB handed
 * to the kernel in 2.4 ms showed as crossed at an interval's close: 110 Mbit/s, then 83, on a
 * 100 Mbit/s link.
 *
 * Where receiving connections are tracked, received bytes are what arrived: the reads plus what
 * the kernel holds unread, both at the table read (a read since it is in the unread figure).
 * Without, a received byte counts once it is read.
 */
export class AcknowledgedTotal implements RunningTotal {
  private floor = Number.NEGATIVE_INFINITY;
  private readCount = -1;
  private sentAtRead = 0;
  private receivedAtRead = 0;
  /** Whether the last total came from a table read (false: what the kernel accepted, true now). */
  private fromTable = false;

  constructor(
    private readonly unacknowledged: UnacknowledgedBytes,
    private readonly sent: () => number,
    private readonly received: () => number = () => 0,
    /** Retransmits lately: the acknowledged figure then stops at a lost segment (RunningTotal.lagging). */
    private readonly repairs: LossRepairs | null = null,
  ) {}

  /** The counters restarted (e.g. at the end of an omit period): forget the floor. */
  reset(): void {
    this.floor = Number.NEGATIVE_INFINITY;
    this.readCount = -1;
  }

  readonly total = (): number => this.read(false);

  /** The total, as the interval sampler reads it (RunningTotal): `fresh` at an interval's close. */
  read(fresh: boolean): number {
    const unacknowledged = this.unacknowledged.read(fresh);
    this.fromTable = unacknowledged !== null;
    const sent = this.sent();
    const received = this.received();
    if (unacknowledged === null || this.unacknowledged.readCount !== this.readCount) {
      this.readCount = this.unacknowledged.readCount;
      this.sentAtRead = sent;
      this.receivedAtRead = received;
    }
    const acknowledgedSent = Math.min(sent, this.sentAtRead) - (unacknowledged ?? 0);
    const unread = this.unacknowledged.unreadBytes;
    const arrived = unread === null ? received : this.receivedAtRead + unread;
    this.floor = Math.max(this.floor, acknowledgedSent + arrived);
    return this.floor;
  }

  /** When the last total was true: its table read (RunningTotal); null without one. */
  takenAtMs(): number | null {
    return this.fromTable ? this.unacknowledged.readAtMs : null;
  }

  /**
   * Whether the last total may lag the link: a loss is being repaired (RunningTotal). Only a
   * table's figure can: without one the total is what the kernel accepted, ahead of the link.
   */
  lagging(nowMs: number): boolean {
    return this.fromTable && (this.repairs?.repairing(nowMs) ?? false);
  }
}
