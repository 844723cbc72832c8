import { randomFillSync } from "node:crypto";

/**
 * Random bytes for upload parts, generated once and reused: part N is a view of one random
 * buffer starting at a different offset, so parts differ from each other, nothing compresses,
 * and no part is ever copied or regenerated (cheap enough for a 0.58-vCPU Lambda).
 */
export class IncompressibleData {
  private static readonly SHIFT_SPAN_BYTES = 65_536;
  private readonly buffer: Buffer;

  constructor(private readonly partBytes: number) {
    this.buffer = randomFillSync(Buffer.allocUnsafe(partBytes + IncompressibleData.SHIFT_SPAN_BYTES));
  }

  /** The body of part `partNumber` (1-based), `lengthBytes` long (the last part may be shorter). */
  part(partNumber: number, lengthBytes: number): Buffer {
    if (lengthBytes > this.partBytes)
      throw new RangeError(`part of ${lengthBytes} bytes > ${this.partBytes}`);
    const offset = (partNumber * 4_099) % IncompressibleData.SHIFT_SPAN_BYTES;
    return this.buffer.subarray(offset, offset + lengthBytes);
  }
}
