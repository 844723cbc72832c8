/** CPU seconds (user + system) this process spent since the clock was started. */
export function startCpuClock(): () => number {
  const start = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1e6;
  };
}
