import type { ClientRequest } from "node:http";
import type { Socket } from "node:net";
import { UnacknowledgedBytes } from "../unacknowledged-bytes.js";

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
export class UploadProgress {
  private acceptedBytes = 0;
  private lastTotal = 0;
  /** Per connection: body bytes handed to the socket whose write has not completed yet. */
  private readonly writing = new Map<Socket, number>();
  private readonly unacknowledged: UnacknowledgedBytes;

  constructor(unacknowledged = new UnacknowledgedBytes()) {
    this.unacknowledged = unacknowledged;
  }

  /** Tracks the connection a part request is sent on, once it is connected. */
  watch(request: ClientRequest): void {
    request.once("socket", (socket: Socket) => {
      const track = () =>
        this.unacknowledged.track(socket.localPort, socket.remotePort, socket.remoteAddress);
      // a new connection: both ports are known at 'connect', before any body byte is accepted
      if (!track()) socket.once("connect", track);
    });
  }

  /** A slice is about to be written on `request`; returns the socket it goes to (null: not assigned yet). */
  sliceWritten(request: ClientRequest, byteCount: number): Socket | null {
    const socket = request.socket;
    if (socket) this.writing.set(socket, (this.writing.get(socket) ?? 0) + byteCount);
    return socket;
  }

  /** The slice's write completed (the kernel has all of it), or failed (`accepted` false). */
  sliceDone(socket: Socket | null, byteCount: number, accepted: boolean): void {
    if (accepted) this.acceptedBytes += byteCount;
    if (!socket) return;
    const left = (this.writing.get(socket) ?? 0) - byteCount;
    if (left > 0) this.writing.set(socket, left);
    else this.writing.delete(socket);
  }

  /** Bytes across the link so far (IntervalSampler's running total). */
  readonly total = (): number => {
    let taken = this.acceptedBytes;
    for (const [socket, writing] of this.writing) taken += takenByKernel(socket, writing);
    const unacknowledged = this.unacknowledged.read() ?? 0;
    this.lastTotal = Math.max(this.lastTotal, taken - unacknowledged);
    return this.lastTotal;
  };
}

/**
 * Of the `writing` bytes on `socket` whose write has not completed, those already in the kernel:
 * what Node holds for the socket (writableLength) minus what its handle has not yet handed to
 * the kernel (writeQueueSize: libuv's queue; under TLS the ciphertext, 0.2 % larger, so this
 * errs low). writeQueueSize is the handle's own field, which Node's net.js reads for its
 * timeouts; where a runtime lacks it nothing is added (the slice counts when its write completes).
 */
function takenByKernel(socket: Socket, writing: number): number {
  const queued = (socket as unknown as { _handle?: { writeQueueSize?: unknown } | null })._handle
    ?.writeQueueSize;
  if (typeof queued !== "number") return 0;
  return Math.min(writing, Math.max(0, socket.writableLength - queued));
}
