/**
 * s3rver over TLS on ADDRESS:PORT (run inside the server namespace), to measure whether it
 * could serve the lab alone. Usage: s3rver-server.ts ADDRESS PORT KEY_PATH CERT_PATH DIRECTORY
 * Prints "ready" when listening; runs until killed.
 */
import { readFileSync } from "node:fs";
import S3rver from "s3rver";

const [address, port, keyPath, certPath, directory] = process.argv.slice(2);
const server = new S3rver({
  address,
  port: Number(port),
  silent: true,
  directory,
  key: readFileSync(String(keyPath)),
  cert: readFileSync(String(certPath)),
  configureBuckets: [{ name: "bench" }],
}) as unknown as { run(): Promise<unknown> };
await server.run();
console.log("ready");
