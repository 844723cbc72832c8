/** Presentation only: raw units in, human strings out (Mbit/s = 1e6 bit/s, MB of Lambda memory, GB = 1e9 bytes). */

export function megabits(bitsPerSecond: number): number {
  return bitsPerSecond / 1e6;
}

export function formatMbps(bitsPerSecond: number | null | undefined, digits = 0): string {
  if (bitsPerSecond === null || bitsPerSecond === undefined || !Number.isFinite(bitsPerSecond)) return "–";
  return megabits(bitsPerSecond).toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

export function formatNumber(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatPercent(ratioPercent: number | null | undefined, digits = 0): string {
  return ratioPercent === null || ratioPercent === undefined || !Number.isFinite(ratioPercent)
    ? "–"
    : `${formatNumber(ratioPercent, digits)}%`;
}

/** Enough significant digits for fractions of a cent. */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return "–";
  return `$${usd.toPrecision(3)}`;
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "–";
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min ${whole - minutes * 60} s`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes - hours * 60} min`;
}

/**
 * A percentage printed beside a decision taken at `thresholdPercent`: whole percent, but one decimal
 * within a point of the threshold, so 94.6% never reads "95%" next to a verdict that it is under 95.
 */
export function formatPercentNear(ratioPercent: number | null | undefined, thresholdPercent: number): string {
  if (ratioPercent === null || ratioPercent === undefined || !Number.isFinite(ratioPercent)) return "–";
  return formatPercent(ratioPercent, Math.abs(ratioPercent - thresholdPercent) < 1 ? 1 : 0);
}
