import { existsSync } from "node:fs";
import { hostCgroups } from "./cgroup-choice.js";
import { LabRefusal } from "./lab-refusal.js";
import { runCommand } from "./run-command.js";

/**
 * Can this machine run shaped environments, and with a round trip? Detected once per process:
 * root, the tools (iproute2, util-linux), the kernel pieces (veth, the tbf qdisc, cgroup cpu
 * and memory controllers, v2 or v1) and, for a profile with a round trip or loss, netem. The
 * kernel pieces are tried for real in a throw-away network namespace (`unshare --net`, gone
 * when the probe exits), so a missing module is found however the kernel was built.
 */

export const ROOT_REFUSAL =
  "the shaped lab needs root (it creates network namespaces, tc qdiscs and cgroups): run it with sudo " +
  "(e.g. `sudo lambda-netbench run ...`), or pass --unshaped for raw loopback figures with no bandwidth, " +
  'CPU or memory limits (every result is then labelled "unshaped")';

export interface KernelProbe {
  /** null when the piece works, else what failed (tc's or ip's message). */
  veth: string | null;
  tbf: string | null;
  netem: string | null;
}

// each check prints "<name> <exit code> <output on one line>"
const PROBE_SCRIPT = `
check() { name=$1; shift; out=$("$@" 2>&1); code=$?; printf '%s %s %s\\n' "$name" "$code" "$(printf %s "$out" | tr '\\n' ' ')"; }
modprobe -q veth 2>/dev/null; modprobe -q sch_tbf 2>/dev/null; modprobe -q sch_netem 2>/dev/null
ip link set lo up
check veth ip link add name lnbprobe0 type veth peer name lnbprobe1
check tbf tc qdisc add dev lo root handle 1: tbf rate 1mbit burst 32kb limit 64kb
tc qdisc del dev lo root 2>/dev/null
check netem tc qdisc add dev lo root handle 1: netem delay 1ms limit 1000
`;

/** What a piece reads when the probe ended before checking it (it is not known to be missing). */
export const NOT_CHECKED = "not checked: the kernel probe ended before reaching it";
/**
 * The probe's limit: generous, since it only ends early when the host is very slow. In the
 * stock-kernel guest (TCG) under a host load of ~25 it took 17-22 s (mostly `unshare --net`
 * and the namespace's teardown).
 */
export const KERNEL_PROBE_LIMIT_SECONDS = 600;

/** Parses the probe script's output (pure, for tests). */
export function parseKernelProbe(output: string): KernelProbe {
  const result: KernelProbe = { veth: NOT_CHECKED, tbf: NOT_CHECKED, netem: NOT_CHECKED };
  for (const line of output.split("\n")) {
    const match = line.match(/^(veth|tbf|netem) (\d+) ?(.*)$/);
    if (!match) continue;
    const [, name, code, text] = match as [string, keyof KernelProbe, string, string];
    result[name] = code === "0" ? null : text.trim() || `exit code ${code}`;
  }
  return result;
}

let kernelProbe: Promise<KernelProbe> | null = null;

/** The kernel pieces, tried once per process (needs root). */
export function probeKernel(): Promise<KernelProbe> {
  kernelProbe ??= runCommand("unshare", ["--net", "--", "sh", "-c", PROBE_SCRIPT], {
    allowFailure: true,
    timeoutSeconds: KERNEL_PROBE_LIMIT_SECONDS,
  }).then(
    (result) => parseKernelProbe(result.stdout),
    (error: Error) => ({ veth: error.message, tbf: error.message, netem: error.message }),
  );
  return kernelProbe;
}

/**
 * Why this host cannot run the shaped lab (each missing piece named), or [] when it can.
 * Without root the other pieces cannot be tried, so that is the one reason given.
 */
export async function shapedLabProblems(): Promise<string[]> {
  if (process.platform !== "linux")
    return [`${process.platform} has no network namespaces (the lab needs Linux)`];
  if (process.getuid?.() !== 0) return [ROOT_REFUSAL];
  const problems: string[] = [];
  const missing = ["ip", "tc", "nsenter", "unshare", "ss"].filter((tool) => !onPath(tool));
  if (missing.length > 0) {
    return [`missing tools: ${missing.join(", ")} (install iproute2 and util-linux)`];
  }
  if (!existsSync("/run")) problems.push("no /run for network namespaces");
  const kernel = await probeKernel();
  if (kernel.veth === NOT_CHECKED || kernel.tbf === NOT_CHECKED) {
    problems.push(
      `the kernel probe (veth, tbf) did not finish within ${KERNEL_PROBE_LIMIT_SECONDS} s; is the host overloaded?`,
    );
  } else {
    if (kernel.veth !== null)
      problems.push(`the kernel cannot create veth pairs (CONFIG_VETH; ip: ${kernel.veth})`);
    if (kernel.tbf !== null)
      problems.push(`the kernel has no tbf qdisc (CONFIG_NET_SCH_TBF; tc: ${kernel.tbf})`);
  }
  const cgroupChoice = hostCgroups();
  if (cgroupChoice.problem !== null) problems.push(cgroupChoice.problem);
  return problems;
}

/** Why a round trip or loss cannot be emulated here (netem missing), or null. */
export async function netemProblem(): Promise<string | null> {
  const { netem } = await probeKernel();
  if (netem === null) return null;
  if (netem === NOT_CHECKED) {
    return `needs the kernel's netem qdisc (sch_netem), which could not be checked: the kernel probe did not finish within ${KERNEL_PROBE_LIMIT_SECONDS} s`;
  }
  return `needs the kernel's netem qdisc (sch_netem), which this kernel lacks (tc: ${netem})`;
}

/** A profile to check, with the field that names it in the user's input. */
export interface ProfileToCheck {
  profile: { name: string; roundTripMs: number; lossPercent: number };
  /** e.g. "profiles.0" (a plan's custom profile) or "--profile slow-link". */
  field: string;
}

/**
 * Refuses (LabRefusal) a shaped lab this host cannot run, and a profile with a round trip or
 * loss where the kernel has no netem, naming the field: never a silent fallback.
 */
export async function checkShapedLab(profiles: ProfileToCheck[]): Promise<void> {
  const problems = await shapedLabProblems();
  if (problems.length > 0) {
    const text = problems.length === 1 ? problems[0] : problems.map((p) => `\n  - ${p}`).join("");
    const advice =
      problems[0] === ROOT_REFUSAL ? "" : "; or pass --unshaped for raw loopback figures (labelled unshaped)";
    throw new LabRefusal(`cannot run the shaped lab: ${text}${advice}`);
  }
  const wantsNetem = profiles.flatMap(({ profile, field }) => [
    ...(profile.roundTripMs > 0
      ? [`${field}.roundTripMs (${profile.roundTripMs} ms, profile ${profile.name})`]
      : []),
    ...(profile.lossPercent > 0
      ? [`${field}.lossPercent (${profile.lossPercent}%, profile ${profile.name})`]
      : []),
  ]);
  if (wantsNetem.length === 0) return;
  const problem = await netemProblem();
  if (problem !== null) {
    throw new LabRefusal(
      `${wantsNetem.join(", ")}: ${problem}; set roundTripMs and lossPercent to 0 or use a kernel with sch_netem`,
    );
  }
}

export function onPath(tool: string): boolean {
  return (process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin")
    .split(":")
    .some((dir) => dir.length > 0 && existsSync(`${dir}/${tool}`));
}
