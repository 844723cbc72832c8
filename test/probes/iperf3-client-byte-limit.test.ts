import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { runOurClient } from "./iperf3-support/client-process.js";
import { type StockServer, startStockServer } from "./iperf3-support/stock-server.js";

/**
 * `probe iperf3 --bytes N` against the stock iperf3 3.12 server: N is the total over all
 * streams (iperf3's -n), so exactly N bytes go out, never more reach the stock server, and our
 * -J document says what each side counted. The stock server runs with -J, so its own count is read
 * from its own document, not from ours.
 */
const LIMIT_BYTES = 1_048_576;

let server: StockServer;
before(async () => {
  server = await startStockServer({ bindAddress: "127.0.0.1", json: true });
});
after(async () => {
  await server?.stop();
});

interface Sums {
  sum_sent: { bytes: number; seconds: number };
  sum_received: { bytes: number; seconds: number };
}

/** The stock server's -J document of the test that just ended (it prints it once the test is over). */
async function stockDocumentAfter(count: number): Promise<{ end: Sums }> {
  const deadline = Date.now() + 5_000;
  while (server.documents().length <= count) {
    if (Date.now() > deadline) throw new Error(`no -J document from the stock server: ${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return server.documents()[count] as unknown as { end: Sums };
}

describe("probe iperf3 --bytes against stock iperf3 3.12: the limit is the total over all streams", () => {
  for (const parallel of [1, 4]) {
    for (const reverse of [false, true]) {
      const label = `-P ${parallel}${reverse ? " -R" : ""}`;
      test(`${label}: exactly ${LIMIT_BYTES} bytes sent, received and reported by both sides`, async () => {
        const before = server.documents().length;
        const run = await runOurClient({
          prefix: [],
          host: "127.0.0.1",
          port: server.port,
          // the time only caps the test: a byte-limited test that misses its limit runs into it
          timeSeconds: 10,
          parallel,
          reverse,
          byteLimit: LIMIT_BYTES,
          timeoutMs: 30_000,
        });
        const ours = (run.document as unknown as { end: Sums }).end;
        assert.equal(ours.sum_sent.bytes, LIMIT_BYTES, `${label}: our sum_sent`);
        // An upload's receiver side is the server's own count, and the protocol lets the server
        // stop counting at TEST_END with the last bytes still unread (stock iperf3's client has
        // the same race): never more than was sent, and exactly what the server says it read.
        if (reverse) assert.equal(ours.sum_received.bytes, LIMIT_BYTES, `${label}: our sum_received`);
        else
          assert.ok(
            ours.sum_received.bytes <= LIMIT_BYTES,
            `${label}: our sum_received ${ours.sum_received.bytes}`,
          );
        assert.ok(
          ours.sum_sent.seconds < 5,
          `${label}: ended on the limit (${ours.sum_sent.seconds} s), not on the time`,
        );

        const stock = (await stockDocumentAfter(before)).end;
        // the 3.12 server's -J holds its own side only: what it wrote (-R) or what it read (upload)
        const stockSide = reverse ? stock.sum_sent : stock.sum_received;
        if (reverse) assert.equal(stockSide.bytes, LIMIT_BYTES, `${label}: the stock server sent`);
        else {
          // twice the limit here was the bug: every stream wrote before the first write counted
          assert.ok(stockSide.bytes <= LIMIT_BYTES, `${label}: the stock server received ${stockSide.bytes}`);
          assert.equal(
            ours.sum_received.bytes,
            stockSide.bytes,
            `${label}: our receiver side is the server's count`,
          );
        }
      });
    }
  }
});
