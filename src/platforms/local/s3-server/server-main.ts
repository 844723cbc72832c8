import { parseArgs } from "node:util";
import { ObjectFiles } from "./object-files.js";
import { createS3ControlServer } from "./s3-control-server.js";

/**
 * Entry point of the lab S3 server's control process (started detached by `lab up`, inside
 * the cloud namespace): node server-main.js --root DIR --bucket NAME --host ADDR --port N
 */
const { values } = parseArgs({
  options: {
    root: { type: "string" },
    bucket: { type: "string" },
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string" },
  },
});
if (!values.root || !values.bucket || !values.port) {
  console.error("usage: server-main.js --root DIR --bucket NAME [--host ADDR] --port N");
  process.exit(2);
}
const files = new ObjectFiles(values.root);
await files.init();
const server = createS3ControlServer(files, values.bucket);
server.listen(Number(values.port), values.host, () => {
  console.log(`lab S3 control server on ${values.host}:${values.port}, files under ${values.root}`);
});
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => process.exit(0));
