/**
 * Child of s3rver-process.ts: s3rver on argv[2] (an address) with bucket argv[3]; prints
 * "listening PORT" and serves until SIGTERM, then removes its store.
 */
import { startS3rver } from "./s3rver-instance.js";

const [address, bucket] = process.argv.slice(2);
const server = await startS3rver({ buckets: [bucket as string], address });
process.stdout.write(`listening ${server.port}\n`);
process.once("SIGTERM", () => {
  void server.close().finally(() => process.exit(0));
});
