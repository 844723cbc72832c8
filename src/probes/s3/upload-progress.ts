import type { ClientRequest } from "node:http";
import type { Socket } from "node:net";
import type { RunningTotal } from "../interval-sampler.js";
import { LossRepairs } from "../retransmits.js";
import { AcknowledgedTotal, UnacknowledgedBytes } from "../unacknowledged-bytes.js";

/**
 * How much of an upload has crossed the link, for the interval samples: the body bytes the
 * kernel has taken minus what the upload's connections still hold unacknowledged in their send
 * buffers (UnacknowledgedBytes). Counting only what the kernel accepted put the initial fill of
 * every send buffer (megabytes once autotuned) in the first interval, faster than the link.
 *
 * What the kernel has taken is counted per slice when the slice's write completes (exact, and
 * what the samples add up to), plus the part of the slice still being written that already left
 * Node: libuv hands a slice to the kernel as the send buffer frees up, and what it has not handed
 * over yet is the handle's write queue. Without that, 1 MiB slices made 250 ms intervals at tens
 * of Mbit/s hold 0, 1 or 2 slices (0/33/67/134 Mbit/s through a 100 Mbit/s paced relay); smaller
 * slices cost CPU per GiB (128 KiB: +30-80 %, docs/BENCHMARKS.md).
 *
 * Where the kernel's table cannot be read the figure is what the kernel accepted (the sender's
 * view, as iperf3's sender intervals). The total never goes back.
 */
export class UploadProgress implements RunningTotal {
  private acceptedBytes = 0;
  /** Per connection: body bytes handed to the socket whose write has not completed yet. */
  private readonly writing = new Map<Socket, number>();
  /**
   * Per request not yet given its connection: body bytes written meanwhile (every part's first
   * slice: the agent assigns the socket a tick later). They move to `writing` when the socket
   * comes, before Node flushes them to it; left out, a slice that crossed the link before its
   * write completed counted late (a stall's interval read 26 Mbit/s, the next 136, on 100).
   */
  private readonly unassigned = new Map<ClientRequest, number>();
  /**
   * New connections not yet connected (TLS: not yet through the handshake). Node holds what is
   * written to them in the stream, where writableLength counts it and the handle's queue does
   * not: nothing of it is in the kernel yet (counted taken, a first slice read 1 MiB early).
   */
  private readonly notReady = new WeakSet<Socket>();
  /** Per connection: body bytes whose write completed on it (for its acknowledged count). */
  private readonly acceptedOn = new Map<Socket, number>();
  /** Per connection: its acknowledged bytes at the last two table reads, and when. */
  private readonly looks = new Map<Socket, AcknowledgedLooks>();
  private lookedAtRead = -1;
  private readonly unacknowledged: UnacknowledgedBytes;
  private readonly acknowledged: AcknowledgedTotal;

  constructor(unacknowledged = new UnacknowledgedBytes(), repairs = new LossRepairs()) {
    this.unacknowledged = unacknowledged;
    this.acknowledged = new AcknowledgedTotal(unacknowledged, () => this.takenBytes(), undefined, repairs);
  }

  /** Tracks the connection a part request is sent on, once it is connected. */
  watch(request: ClientRequest): void {
    request.once("socket", (socket: Socket) => {
      if (socket.connecting) {
        this.notReady.add(socket);
        const ready = () => this.notReady.delete(socket);
        socket.once(
          (socket as Socket & { encrypted?: boolean }).encrypted ? "secureConnect" : "connect",
          ready,
        );
      }
      if (!this.acceptedOn.has(socket)) this.acceptedOn.set(socket, 0);
      const waiting = this.unassigned.get(request);
      if (waiting !== undefined) {
        this.unassigned.delete(request);
        this.writing.set(socket, (this.writing.get(socket) ?? 0) + waiting);
      }
      const track = () =>
        this.unacknowledged.track(socket.localPort, socket.remotePort, socket.remoteAddress);
      // a new connection: both ports are known at 'connect', before any body byte is accepted
      if (!track()) socket.once("connect", track);
    });
  }

  /** A slice of `byteCount` body bytes is about to be written on `request` (watched first). */
  sliceWritten(request: ClientRequest, byteCount: number): void {
    const socket = request.socket;
    if (socket) addTo(this.writing, socket, byteCount);
    else addTo(this.unassigned, request, byteCount);
  }

  /** The slice's write completed (the kernel has all of it), or failed (`accepted` false). */
  sliceDone(request: ClientRequest, byteCount: number, accepted: boolean): void {
    if (accepted) {
      this.acceptedBytes += byteCount;
      if (request.socket) addTo(this.acceptedOn, request.socket, byteCount);
    }
    if (this.unassigned.has(request)) addTo(this.unassigned, request, -byteCount);
    else if (request.socket) addTo(this.writing, request.socket, -byteCount);
  }

  /** Bytes across the link so far. */
  readonly total = (): number => this.acknowledged.total();

  /** The total as the interval sampler reads it (RunningTotal): `fresh` at an interval's close. */
  read(fresh: boolean): number {
    const value = this.acknowledged.read(fresh);
    this.look();
    return value;
  }

  /** When the last total was true: the kernel table's read (RunningTotal). */
  takenAtMs(): number | null {
    return this.acknowledged.takenAtMs();
  }

  /**
   * Whether the last total may lag the link while a loss is repaired (RunningTotal): the kernel
   * retransmitted lately, or a connection holding unacknowledged bytes shows none acknowledged
   * since a table read at most STILL_MS before this one (read afresh). A hole repaired by a
   * retransmission timeout (200 ms and more) holds its connection's count still with no
   * retransmit to see meanwhile, while what follows the hole crosses the link: such a close read
   * 64 Mbit/s on a 100 Mbit/s link whose own counter read 98, and the next 126. A peer whose
   * window is closed holds it still too; waiting for it moves no byte to the wrong interval.
   */
  lagging(nowMs: number): boolean {
    this.read(true);
    let still = false;
    for (const looks of this.looks.values()) {
      if (looks.atMs !== this.unacknowledged.readAtMs) continue; // not in this read's tables
      const moved = looks.ackedBytes !== looks.previousBytes && looks.atMs - looks.previousAtMs <= STILL_MS;
      if (looks.unacknowledgedBytes > 0 && !moved) still = true;
    }
    return this.acknowledged.lagging(nowMs) || still;
  }

  /** After a table read: each connection's acknowledged bytes by that read (for `lagging`). */
  private look(): void {
    const readCount = this.unacknowledged.readCount;
    const atMs = this.unacknowledged.readAtMs;
    if (readCount === this.lookedAtRead || atMs === null) return;
    this.lookedAtRead = readCount;
    for (const [socket, accepted] of this.acceptedOn) {
      const unacknowledgedBytes = this.unacknowledged.of(socket.localPort, socket.remotePort);
      if (unacknowledgedBytes === undefined) continue;
      const writing = this.writing.get(socket);
      const ackedBytes =
        accepted +
        (writing !== undefined && !this.notReady.has(socket) ? takenByKernel(socket, writing) : 0) -
        unacknowledgedBytes;
      const last = this.looks.get(socket);
      this.looks.set(socket, {
        ackedBytes,
        unacknowledgedBytes,
        atMs,
        previousBytes: last?.ackedBytes ?? Number.NaN,
        previousAtMs: last?.atMs ?? Number.NEGATIVE_INFINITY,
      });
    }
  }

  /** Body bytes the kernel has taken: completed writes, and what it took of those in progress. */
  private takenBytes(): number {
    let taken = this.acceptedBytes;
    for (const [socket, writing] of this.writing) {
      if (!this.notReady.has(socket)) taken += takenByKernel(socket, writing);
    }
    return taken;
  }
}

/**
 * Two table reads at most this far apart show a flowing connection's acknowledged count moving
 * (its ACKs come every few segments; in the lab they arrive in bursts a few ms apart). Reads
 * further apart say nothing about whether it moves now: the close reads again.
 */
const STILL_MS = 30;

/** A connection's acknowledged bytes at the last table read and the one before (`atMs`: the read's performance.now()). */
interface AcknowledgedLooks {
  ackedBytes: number;
  unacknowledgedBytes: number;
  atMs: number;
  previousBytes: number;
  previousAtMs: number;
}

/** Adds `byteCount` (negative: removes) to `key`'s count, dropping counts that reach 0. */
function addTo<K>(counts: Map<K, number>, key: K, byteCount: number): void {
  const left = (counts.get(key) ?? 0) + byteCount;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/**
 * Of the `writing` bytes on `socket` whose write has not completed, those already in the kernel:
 * what Node holds for the socket (writableLength) minus what libuv has not yet handed to the
 * kernel (writeQueueSize of the TCP handle; Node's net.js reads the same field for its
 * timeouts). Under TLS the socket's handle is the TLS layer, which encrypts a write whole and
 * passes the ciphertext to the TCP handle beneath it (`_parent`): the TLS handle's own
 * writeQueueSize stays at the whole ciphertext until the write completes (Node 20 and 22), so
 * read there, nothing of a slice in flight counted (test/probes/upload-progress.test.ts). The
 * TCP handle queues ciphertext, 0.2 % larger than the body, so this errs low. Where a runtime
 * lacks the field nothing is added (the slice counts when its write completes).
 */
function takenByKernel(socket: Socket, writing: number): number {
  const handle = (socket as unknown as { _handle?: KernelFacingHandle | null })._handle;
  const queued = (handle?._parent ?? handle)?.writeQueueSize;
  if (typeof queued !== "number") return 0;
  return Math.min(writing, Math.max(0, socket.writableLength - queued));
}

/** What takenByKernel reads of a socket's handle: libuv's queue, and under TLS the TCP handle. */
interface KernelFacingHandle {
  writeQueueSize?: unknown;
  _parent?: { writeQueueSize?: unknown } | null;
}
