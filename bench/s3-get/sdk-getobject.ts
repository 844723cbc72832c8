/**
 * The alternative GET hot path, measured for comparison only: the AWS SDK's GetObject with
 * the same parallel 16 MiB ranges, each Body stream counted and dropped.
 * Usage: sdk-getobject.ts ENDPOINT CA_PATH BUCKET KEY CONCURRENCY CHUNK_MIB
 * Prints one JSON object: bytes, seconds, cpuSeconds (the transfer only).
 */
import { readFileSync } from "node:fs";
import https from "node:https";
import { GetObjectCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";

const [endpoint, caPath, bucket, key, concurrencyText, chunkMibText] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
const chunkBytes = Number(chunkMibText) * 1_048_576;
const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, ca: readFileSync(String(caPath)) });
const client = new S3Client({
  endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  credentials: { accessKeyId: "lnb-bench", secretAccessKey: "lnb-bench-secret" },
  requestHandler: { httpsAgent: agent },
  responseChecksumValidation: "WHEN_REQUIRED",
});
const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
const size = Number(head.ContentLength);
const ranges: Array<[number, number]> = [];
for (let start = 0; start < size; start += chunkBytes)
  ranges.push([start, Math.min(size, start + chunkBytes) - 1]);
let bytes = 0;
const cpuStart = process.cpuUsage();
const wallStart = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let range = ranges.shift(); range; range = ranges.shift()) {
      const response = await client.send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: key,
          Range: `bytes=${range[0]}-${range[1]}`,
          IfMatch: head.ETag,
        }),
      );
      const body = response.Body as NodeJS.ReadableStream;
      await new Promise<void>((resolve, reject) => {
        body.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
        });
        body.on("end", resolve);
        body.on("error", reject);
      });
    }
  }),
);
const seconds = (performance.now() - wallStart) / 1000;
const cpu = process.cpuUsage(cpuStart);
console.log(JSON.stringify({ bytes, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 }));
agent.destroy();
