/** A test the server refuses or aborts: sent to the client as 0xFE + int32 BE code + int32 BE errno. */
export class ServerFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly errno = 0,
  ) {
    super(message);
    this.name = "ServerFailure";
  }
}

export function encodeServerError(code: number, errno = 0): Buffer {
  const frame = Buffer.alloc(9);
  frame.writeInt8(-2, 0);
  frame.writeInt32BE(code, 1);
  frame.writeInt32BE(errno, 5);
  return frame;
}
