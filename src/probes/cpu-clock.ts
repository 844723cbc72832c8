/** CPU seconds (user + system) this process spent since the clock was started. */
export function startCpuClock(): () => number {
  const start = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1e6;
  };
}

export interface CpuPercent {
  total: number;
  user: number;
  system: number;
}

/**
 * CPU of this process as a share of the wall time since the clock was started, percent, as
 * iperf3 reports cpu_utilization_percent.
 */
export function startCpuPercent(): () => CpuPercent {
  const cpuStart = process.cpuUsage();
  const wallStartNs = process.hrtime.bigint();
  return () => {
    const cpu = process.cpuUsage(cpuStart);
    const wallUs = Number(process.hrtime.bigint() - wallStartNs) / 1000;
    if (!(wallUs > 0)) return { total: 0, user: 0, system: 0 };
    return {
      user: (cpu.user / wallUs) * 100,
      system: (cpu.system / wallUs) * 100,
      total: ((cpu.user + cpu.system) / wallUs) * 100,
    };
  };
}
