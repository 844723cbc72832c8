import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/**
 * MD5 of files (a body sent with Content-MD5, to check it) in worker threads: hashing costs
 * about 1.5-2 CPU seconds per GiB here (openssl speed md5: 720 MB/s on one core), so on the
 * event loop it would stall every other request for ~0.1 s per 64 MiB part. In workers the
 * parts in flight are hashed on both cores at once while nginx keeps receiving the others.
 * The file was just written, so it is read back from the page cache.
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { openSync, readSync, closeSync } = require("node:fs");
const { createHash } = require("node:crypto");
const buffer = Buffer.allocUnsafe(4 * 1048576);
parentPort.on("message", ({ id, path }) => {
  let fd;
  try {
    fd = openSync(path, "r");
    const hash = createHash("md5");
    let bytes = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
      bytes += read;
    }
    parentPort.postMessage({ id, md5: hash.digest("hex"), bytes });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
});
`;

export interface FileDigest {
  md5Hex: string;
  bytes: number;
}

interface Job {
  id: number;
  path: string;
  resolve: (digest: FileDigest) => void;
  reject: (error: Error) => void;
}

/** Workers start on the first digest: most lab uploads never send Content-MD5. */
export class FileMd5Pool {
  private readonly idle: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly running = new Map<Worker, Job>();
  private nextId = 1;
  private started = 0;

  constructor(private readonly size = Math.max(1, Math.min(4, availableParallelism()))) {}

  digest(path: string): Promise<FileDigest> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, path, resolve, reject });
      this.dispatch();
    });
  }

  private startWorker(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on("message", (message: { id: number; md5?: string; bytes?: number; error?: string }) => {
      const job = this.running.get(worker);
      this.running.delete(worker);
      if (job) {
        if (message.error !== undefined) job.reject(new Error(`MD5 of ${job.path}: ${message.error}`));
        else job.resolve({ md5Hex: message.md5 ?? "", bytes: message.bytes ?? 0 });
      }
      this.idle.push(worker);
      this.dispatch();
    });
    worker.unref();
    this.started += 1;
    return worker;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.started < this.size ? this.startWorker() : undefined);
      if (!worker) return;
      const job = this.queue.shift() as Job;
      this.running.set(worker, job);
      worker.postMessage({ id: job.id, path: job.path });
    }
  }
}
