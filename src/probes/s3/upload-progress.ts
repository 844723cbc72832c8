import type { ClientRequest } from "node:http";
import type { Socket } from "node:net";
import { UnacknowledgedBytes } from "../unacknowledged-bytes.js";

/**
 * How much of an upload has crossed the link, for the interval samples: the body bytes the
 * kernel accepted (counted per slice, see SLICE_BYTES in multipart-upload.ts) minus what the
 * upload's connections still hold unacknowledged in their send buffers. Counting accepted bytes
 * alone puts the initial fill of every send buffer (megabytes once autotuned) in the first
 * interval, faster than any link; acknowledged bytes cannot run ahead of the link.
 *
 * Where the kernel's table cannot be read the figure is the accepted count (the sender's
 * view, as iperf3's sender intervals). The total never goes back: a slice the kernel took in
 * part is already in the unacknowledged bytes but not yet in the accepted ones.
 */
export class UploadProgress {
  private acceptedBytes = 0;
  private lastTotal = 0;
  private readonly unacknowledged: UnacknowledgedBytes;

  constructor(unacknowledged = new UnacknowledgedBytes()) {
    this.unacknowledged = unacknowledged;
  }

  /** Body bytes the kernel accepted (a slice's write callback). */
  accepted(byteCount: number): void {
    this.acceptedBytes += byteCount;
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

  /** Bytes across the link so far (IntervalSampler's running total). */
  readonly total = (): number => {
    const unacknowledged = this.unacknowledged.read() ?? 0;
    this.lastTotal = Math.max(this.lastTotal, this.acceptedBytes - unacknowledged);
    return this.lastTotal;
  };
}
