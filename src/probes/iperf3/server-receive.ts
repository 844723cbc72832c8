import { Socket, type SocketConstructorOpts } from "node:net";

/**
 * One receive buffer for every stream the server counts: nothing reads the bytes, so they may
 * overwrite each other. 256 KiB lets each read() take what a fast link delivered meanwhile.
 */
const sharedReceiveBuffer = Buffer.allocUnsafe(256 * 1024);

interface HandleOwner {
  _handle?: { readStop?: () => number; reading?: boolean } | null;
}

/**
 * Makes `socket` count what it receives into `onBytes` without Node allocating a Buffer per read.
 * Sockets accepted by net.Server cannot take the `onread` option, so the accepted TCP handle is
 * re-wrapped in a Socket that has it (Node's own Socket({ handle }) path) and the original
 * wrapper is retired. If this Node has no such handle, it falls back to counting 'data' chunks.
 * Returns the socket to use from now on.
 */
export function countReceivedBytes(socket: Socket, onBytes: (bytes: number) => void): Socket {
  const owner = socket as unknown as HandleOwner;
  const handle = owner._handle;
  if (!handle || typeof handle.readStop !== "function" || socket.destroyed) {
    socket.on("data", (chunk: Buffer) => onBytes(chunk.length));
    socket.resume();
    return socket;
  }
  handle.readStop();
  handle.reading = false;
  const options = {
    handle,
    readable: true,
    writable: true,
    onread: {
      buffer: sharedReceiveBuffer,
      callback: (bytes: number) => {
        onBytes(bytes);
      },
    },
  } as SocketConstructorOpts;
  const adopted = new Socket(options);
  // the old wrapper must not close the handle, but must still leave the server's connection count
  owner._handle = null;
  socket.destroy();
  return adopted;
}
