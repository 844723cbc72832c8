// The AWS SDK v3's managed upload (@aws-sdk/lib-storage Upload) from memory.
// Usage: node sdk-upload.mjs ENDPOINT CA_PATH BUCKET KEY BYTES CONCURRENCY PART_MIB
// Prints one JSON object: bytes, seconds (the upload only), cpuSeconds (process CPU around the
// upload only: start-up and generating the data excluded), etag.
import { randomFillSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { NodeHttpHandler } from "@smithy/node-http-handler";

const [endpoint, caPath, bucket, key, size, concurrency, partMib] = process.argv.slice(2);
const client = new S3Client({
  endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  requestHandler: new NodeHttpHandler({
    httpsAgent: new Agent({ ca: readFileSync(caPath), keepAlive: true, maxSockets: Number(concurrency) }),
  }),
});
const body = randomFillSync(Buffer.allocUnsafe(Number(size)));
const cpuStart = process.cpuUsage();
const start = performance.now();
await new Upload({
  client,
  params: { Bucket: bucket, Key: key, Body: body },
  partSize: Number(partMib) * 1_048_576,
  queueSize: Number(concurrency),
}).done();
const seconds = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpuStart);
const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
console.log(
  JSON.stringify({
    bytes: head.ContentLength,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    etag: head.ETag,
  }),
);
