// A byte relay run inside a network namespace (ip netns exec NS node relay-main.mjs ...): each
// argument `UNIX_PATH=HOST:PORT` listens on a Unix socket (a file, so visible from every
// namespace) and connects each accepted stream to HOST:PORT inside this namespace. The rehearsal
// uses it to let the CLI, in the machine's own namespace, reach the servers in the lab's cloud
// namespace without adding a route or an address to the machine's namespace.
import { rmSync } from "node:fs";
import { connect, createServer } from "node:net";

const mappings = process.argv.slice(2).map((argument) => {
  const match = /^(.+)=([^=:]+):(\d+)$/.exec(argument);
  if (!match) {
    console.error(`relay: "${argument}" is not UNIX_PATH=HOST:PORT`);
    process.exit(2);
  }
  return { path: match[1], host: match[2], port: Number(match[3]) };
});
let listening = 0;
for (const { path, host, port } of mappings) {
  rmSync(path, { force: true });
  const server = createServer((inbound) => {
    const outbound = connect({ host, port });
    inbound.pipe(outbound).pipe(inbound);
    inbound.on("error", () => outbound.destroy());
    outbound.on("error", () => inbound.destroy());
  });
  server.listen(path, () => {
    listening += 1;
    // one line once every socket listens: the parent's readiness signal
    if (listening === mappings.length) process.stdout.write("relay ready\n");
  });
}
