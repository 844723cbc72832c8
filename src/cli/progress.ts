import { movesData } from "../probes/registry.js";
import { burstSecondsText } from "../report/burst-text.js";
import { latencyProgressText } from "../report/latency-section.js";
import { rateWords } from "../report/rate-words.js";
import type { ReportModel } from "../report/report-model.js";
import { renderSummaryJson } from "../report/summary-json.js";
import { renderTerminal } from "../report/terminal-format.js";
import { outputWidth } from "../report/text-layout.js";
import { formatMbps } from "../report/units.js";
import { type RecordRates, recordRates } from "../results/record-rates.js";
import type { ResultRecord } from "../results/result-record.js";

/**
 * Run progress at the CLI edge: a one-line bar with ETA redrawn in place on a TTY, one plain
 * line per finished invocation otherwise (logs, CI). Written to stderr; results go to stdout.
 */
export class Progress {
  private done: number;
  private doneThisSession = 0;
  /** When the first invocation of this session was recorded: the clock of the ETA starts there. */
  private firstRecordedMs: number | null = null;
  /** How long the first recorded invocation ran: the only estimate before a second one. */
  private firstTaskSeconds: number | null = null;
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

  /** `ceilingBitsPerSecond`: the limit in force for the record's cell (`ceilingOfRecord`), null when unknown. */
  recorded(record: ResultRecord, ceilingBitsPerSecond: number | null = null): void {
    this.done += 1;
    this.doneThisSession += 1;
    if (this.firstRecordedMs === null) {
      this.firstRecordedMs = Date.now();
      this.firstTaskSeconds = record.durationSeconds;
    }
    const result = record.ok
      ? record.latency
        ? latencyProgressText(record.latency)
        : record.bitsPerSecond !== null && movesData(record.probe)
          ? progressRateText(recordRates(record, ceilingBitsPerSecond))
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

  // Set-up (environments, test objects, warm-ups) comes before the first record: timed from the
  // start, it made the first ETA of a 5-minute run read 14 minutes. So the first ETA is the first
  // invocation's own length per remaining one, later ones the time between records.
  private eta(): string {
    if (this.firstRecordedMs === null) return "?";
    const perTaskSeconds =
      this.doneThisSession > 1
        ? (Date.now() - this.firstRecordedMs) / 1000 / (this.doneThisSession - 1)
        : (this.firstTaskSeconds ?? 0);
    const seconds = Math.round(perTaskSeconds * (this.total - this.done));
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

/**
 * One invocation's rates, each named: "598 Mbit/s sustained (864 avg incl. 1.0 s burst)", or the
 * reason there is no sustained rate beside the average.
 */
export function progressRateText(rates: RecordRates | null): string {
  if (!rates) return "ok";
  const average = formatMbps(rates.effectiveBitsPerSecond);
  const idle = idleText(rates.afterLastByteSeconds);
  if (rates.sustainedBitsPerSecond === null)
    return `${average} Mbit/s ${rateWords.average}${idle ? ` and ${idle}` : ""}; no ${rateWords.sustained} rate: ${rates.sustainedNullReason ?? "no samples"}`;
  const unconfirmed = rates.ceilingCheck === "unknown" ? ", unconfirmed: no quota known" : "";
  const sustained = `${formatMbps(rates.sustainedBitsPerSecond)} Mbit/s ${rateWords.sustained}${unconfirmed}`;
  const included = [
    rates.burst
      ? `${burstSecondsText(rates.burst.seconds, rates.burst.secondsBound, rates.burst.intervalSeconds, 1)} ${rateWords.burst}`
      : null,
    idle,
  ].filter((part): part is string => part !== null);
  const noBurst = !rates.burst && rates.burstFound === "none" ? `, no ${rateWords.burst}` : "";
  return `${sustained} (${average} avg${included.length > 0 ? ` incl. ${included.join(" and ")}` : ""}${noBurst})`;
}

/**
 * The wait after the last byte that the average includes, when it moves the average: an s3-put's
 * CompleteMultipartUpload made "2,639 sustained (1,483 avg)" read as a slow link.
 */
function idleText(seconds: number | null): string | null {
  return seconds !== null && seconds >= 0.25 ? `${seconds.toFixed(1)} s after the last byte` : null;
}

/**
 * What `run` prints when it completes, on stdout: the verdict and the summary fitted to the
 * terminal, then the run beside the published study; or, with --json, the summary as JSON.
 */
export function printRunSummary(model: ReportModel, json: boolean): void {
  process.stdout.write(
    json ? renderSummaryJson(model) : renderTerminal(model, { width: outputWidth(), baseline: true }),
  );
}
