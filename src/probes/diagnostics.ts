import { startCpuClock } from "./cpu-clock.js";

/**
 * Lab diagnostics: a CPU burner (how many cores does this environment really get?) and an
 * allocator (is the memory limit enforced?). Both are bounded: the burner by time, the
 * allocator by the size it was asked for.
 */
export async function burnCpu(
  seconds: number,
): Promise<{ wallSeconds: number; cpuSeconds: number; cores: number }> {
  const cpu = startCpuClock();
  const startMs = performance.now();
  const endMs = startMs + seconds * 1000;
  let sink = 0;
  while (performance.now() < endMs) {
    for (let i = 0; i < 100_000; i += 1) sink = (sink * 31 + i) | 0;
  }
  const wallSeconds = (performance.now() - startMs) / 1000;
  const cpuSeconds = cpu();
  if (sink === 42) process.stdout.write(""); // keep the loop from being optimised away
  return { wallSeconds, cpuSeconds, cores: cpuSeconds / wallSeconds };
}

/** Touches every page of `mib` MiB so the memory is really resident, then releases it. */
export function allocate(mib: number): { allocatedMib: number } {
  const chunks: Buffer[] = [];
  for (let i = 0; i < mib; i += 1) chunks.push(Buffer.alloc(1_048_576, i & 0xff));
  return { allocatedMib: chunks.length };
}
