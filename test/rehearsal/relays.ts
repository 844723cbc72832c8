import { type ChildProcess, spawn } from "node:child_process";
import { createConnection, createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";

/**
 * Streams between the machine's own namespace and the lab's cloud namespace, through Unix
 * sockets (files, visible from every namespace): a listener here (TCP on loopback) forwards to
 * a socket, and a relay process inside the namespace forwards that socket to a TCP address
 * there. Nothing is added to the machine's routes or addresses.
 */

const RELAY_MAIN = fileURLToPath(new URL("./relay-main.mjs", import.meta.url));
const READY_LIMIT_MS = 15_000;

export interface Mapping {
  socketPath: string;
  host: string;
  port: number;
}

/** Starts one relay process in the namespace for these mappings; resolves once every socket listens. */
export async function startNamespaceRelay(namespace: string, mappings: Mapping[]): Promise<ChildProcess> {
  const child = spawn(
    "ip",
    [
      "netns",
      "exec",
      namespace,
      process.execPath,
      RELAY_MAIN,
      ...mappings.map((m) => `${m.socketPath}=${m.host}:${m.port}`),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`relay in ${namespace} not ready within ${READY_LIMIT_MS / 1000} s: ${stderr}`));
    }, READY_LIMIT_MS);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      if (chunk.includes("relay ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`relay in ${namespace} exited (${code}): ${stderr}`));
    });
  });
  return child;
}

/** A loopback TCP listener here whose every connection is forwarded to a Unix socket. */
export async function listenToSocket(host: string, port: number, socketPath: string): Promise<Server> {
  const server = createServer((inbound) => {
    const outbound = createConnection(socketPath);
    inbound.pipe(outbound).pipe(inbound);
    inbound.on("error", () => outbound.destroy());
    outbound.on("error", () => inbound.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export function listeningPort(server: Server): number {
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("server is not listening");
  return address.port;
}

/** Kills a child by its PID and waits for its exit (bounded). */
export async function stopChild(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
}
