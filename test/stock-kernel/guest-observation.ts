/**
 * The guest's eyes on the lab: commands with bounded output, and what the lab really had
 * (namespaces, cgroups, qdiscs, processes, server logs) while a step ran.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandRun } from "./guest-report.js";

export type Json = Record<string, unknown>;

export function log(message: string): void {
  process.stdout.write(`[guest ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export function run(
  command: string,
  args: string[],
  timeoutSeconds = 600,
): Promise<CommandRun & { stdout: string }> {
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let both = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutSeconds * 1000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
      both += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      both += chunk;
    });
    const finish = (exitCode: number) => {
      clearTimeout(timer);
      resolvePromise({
        command: [command, ...args].join(" "),
        exitCode,
        outputTail: both.slice(-4096),
        seconds: (Date.now() - started) / 1000,
        stdout,
      });
    };
    child.once("error", (error) => {
      both += `${error.message}\n`;
      finish(127);
    });
    child.once("close", (code, signal) => finish(code ?? (signal ? 128 : 1)));
  });
}

export function listNamespaces(): string[] {
  try {
    return readdirSync("/run/netns").sort();
  } catch {
    return [];
  }
}

/** Every cgroup directory whose name starts with `prefix`, anywhere under /sys/fs/cgroup. */
export function findCgroups(prefix: string, dir = "/sys/fs/cgroup", depth = 0): string[] {
  if (depth > 4) return [];
  let entries: string[];
  try {
    entries = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    return [...(name.startsWith(prefix) ? [path] : []), ...findCgroups(prefix, path, depth + 1)];
  });
}

/** Command lines of every process but the kernel's threads, this one and its ancestors. */
export function listProcesses(): string[] {
  const mine = new Set<number>();
  for (let pid = process.pid; pid > 0; ) {
    mine.add(pid);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  }
  const lines: string[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || mine.has(pid)) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
      if (cmdline !== "") lines.push(`${pid} ${cmdline}`);
    } catch {
      // exited meanwhile
    }
  }
  return lines;
}

export function labState(prefix: string) {
  return {
    namespaces: listNamespaces().filter((name) => name.startsWith(prefix)),
    cgroups: findCgroups(prefix),
    processes: listProcesses(),
  };
}

/** Polls the lab's cgroups and namespaces while `work` runs: what the shaping really was. */
export async function watchLab<T>(
  prefix: string,
  cpuMaxSeen: Record<string, string>,
  qdiscsSeen: Record<string, string>,
  labLogs: Record<string, string>,
  work: () => Promise<T>,
): Promise<T> {
  let done = false;
  const qdiscFailures: Record<string, string> = {};
  let polls = 0;
  const poll = async () => {
    while (!done) {
      for (const dir of findCgroups(prefix)) {
        for (const sub of [dir, ...readdirSafe(dir).map((name) => join(dir, name))]) {
          const file = join(sub, "cpu.max");
          if (existsSync(file)) cpuMaxSeen[sub] = readFileSync(file, "utf8").trim();
        }
      }
      for (const namespace of listNamespaces().filter((name) => name.startsWith(prefix))) {
        if (qdiscsSeen[namespace]?.includes("netem") && qdiscsSeen[namespace]?.includes("tbf")) continue;
        const shown = await run("tc", ["-n", namespace, "-d", "qdisc", "show"], 30);
        if (shown.exitCode === 0) qdiscsSeen[namespace] = shown.stdout.trim();
        else qdiscFailures[namespace] = `exit ${shown.exitCode}: ${shown.outputTail.slice(-300)}`;
      }
      collectLabLogs(labLogs);
      polls += 1;
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 2000));
    }
  };
  const poller = poll();
  try {
    return await work();
  } finally {
    done = true;
    await poller;
    // seen nothing: say why, for the next reader of a failed run
    if (Object.keys(qdiscsSeen).length === 0)
      log(
        `no qdiscs seen in ${polls} polls; namespaces now: ${listNamespaces().join(", ") || "none"}; tc failures: ${JSON.stringify(qdiscFailures)}`,
      );
  }
}

export function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** The last 2 KB of every log of the lab's (its servers' output), for a failure's report. A failed
 *  `lab up` removes its directory, so this runs every few seconds while a step runs. */
export function collectLabLogs(into: Record<string, string>): void {
  for (const dir of readdirSafe("/run").filter((name) => name.startsWith("lnblab"))) {
    let files: string[];
    try {
      files = readdirSync(join("/run", dir)).filter((name) => name.endsWith(".log"));
    } catch {
      continue;
    }
    for (const file of files) {
      try {
        const path = join("/run", dir, file);
        into[path] = readFileSync(path, "utf8").slice(-2048);
      } catch {
        // removed meanwhile
      }
    }
  }
}

export async function keepingLabLogs<T>(into: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => collectLabLogs(into), 3000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    collectLabLogs(into);
  }
}

/** Printed at once, not only in the final report: a VM that times out later still shows why. */
export function printLabLogs(logs: Record<string, string>): void {
  for (const [path, text] of Object.entries(logs)) log(`${path} (tail):\n${text}`);
}
