import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createWriteStream } from "node:fs";
import { request } from "node:http";

/**
 * moto's server mode (Python), the independent implementation of the AWS APIs the rehearsal
 * runs against: started on a loopback port (or inside the lab's cloud namespace), waited for
 * with a bound, killed by its PID.
 */

const READY_LIMIT_MS = 60_000;

/** Why the rehearsal cannot run here, or null when python3 with moto and Flask is installed. */
export function motoMissing(): string | null {
  const probe = spawnSync(
    "python3",
    ["-c", "import moto, flask, flask_cors; from importlib.metadata import version; print(version('moto'))"],
    { encoding: "utf8", timeout: 60_000 },
  );
  if (probe.error) return `python3 is not installed (${probe.error.message})`;
  if (probe.status !== 0)
    return `python3 lacks moto's server mode (moto, flask, flask_cors): ${probe.stderr.trim().split("\n").at(-1)}`;
  return null;
}

export interface MotoProcess {
  child: ChildProcess;
}

/**
 * Starts `python3 -m moto.server -H HOST -p PORT` (in `namespace` when given) and waits until
 * `probeUrl` (how this process reaches it) answers moto's own API.
 */
export async function startMoto(options: {
  namespace: string | null;
  host: string;
  port: number;
  probeUrl: string;
  /** moto's own log (its tracebacks say why an operation answered 500). */
  logFile: string;
}): Promise<MotoProcess> {
  const command = ["python3", "-m", "moto.server", "-H", options.host, "-p", String(options.port)];
  const [file, ...args] = options.namespace
    ? ["ip", "netns", "exec", options.namespace, ...command]
    : command;
  const child = spawn(file as string, args, {
    stdio: ["ignore", "ignore", "pipe"],
    // moto decides by these whether a Lambda Invoke may use Docker: it may not here
    env: { ...process.env, MOTO_DOCKER_NETWORK_MODE: "none", PYTHONUNBUFFERED: "1" },
  });
  let stderr = "";
  const log = createWriteStream(options.logFile);
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
    log.write(chunk);
  });
  child.once("exit", () => log.end());
  const deadline = Date.now() + READY_LIMIT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`moto exited with ${child.exitCode}: ${stderr}`);
      if (await answers(`${options.probeUrl}/moto-api/`)) break;
      if (Date.now() > deadline)
        throw new Error(`moto did not answer within ${READY_LIMIT_MS / 1000} s: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return { child };
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
}

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}
