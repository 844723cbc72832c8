import type { ResultRecord } from "../results/result-record.js";

/**
 * Run progress at the CLI edge: a one-line bar with ETA redrawn in place on a TTY, one plain
 * line per finished invocation otherwise (logs, CI). Written to stderr; results go to stdout.
 */
export class Progress {
  private done: number;
  private doneThisSession = 0;
  private readonly startMs = Date.now();
  private lastLine = "";

  constructor(
    private readonly total: number,
    alreadyDone: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly tty: boolean = process.stderr.isTTY === true,
  ) {
    this.done = alreadyDone;
  }

  message(text: string): void {
    this.clear();
    this.stream.write(`${text}\n`);
    this.redraw();
  }

  recorded(record: ResultRecord): void {
    this.done += 1;
    this.doneThisSession += 1;
    const result = record.ok
      ? record.bitsPerSecond !== null
        ? `${(record.bitsPerSecond / 1e6).toFixed(0)} Mbit/s`
        : "ok"
      : `FAILED ${record.error?.kind}: ${record.error?.message.slice(0, 80)}`;
    const what = `${record.target} ${record.memoryMb} MB ${record.arch} ${record.probeLabel} #${record.repetition}`;
    if (this.tty) {
      this.lastLine = `${what}: ${result}`;
      this.redraw();
    } else {
      this.stream.write(`[${this.done}/${this.total}] ${what}: ${result} (ETA ${this.eta()})\n`);
    }
  }

  finish(): void {
    this.clear();
  }

  private eta(): string {
    if (this.doneThisSession === 0) return "?";
    const perTaskMs = (Date.now() - this.startMs) / this.doneThisSession;
    const seconds = Math.round((perTaskMs * (this.total - this.done)) / 1000);
    return seconds >= 60
      ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`
      : `${seconds}s`;
  }

  private redraw(): void {
    if (!this.tty) return;
    const width = 24;
    const filled = this.total > 0 ? Math.round((this.done / this.total) * width) : width;
    const percent = this.total > 0 ? Math.floor((this.done / this.total) * 100) : 100;
    const columns = this.stream.columns ?? 100;
    const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${this.done}/${this.total} ${percent}% ETA ${this.eta()}  ${this.lastLine}`;
    this.stream.write(`\r\x1b[2K${line.slice(0, columns - 1)}`);
  }

  private clear(): void {
    if (this.tty) this.stream.write("\r\x1b[2K");
  }
}
