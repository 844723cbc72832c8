import type { Socket } from "node:net";
import os from "node:os";
import { z } from "zod";
import { type CpuPercent, startCpuClock, startCpuPercent } from "../cpu-clock.js";
import type { IntervalSamples } from "../interval-sampler.js";
import { isProbeError, ProbeError } from "../probe-error.js";
import { startRetransmitCounter } from "../retransmits.js";
import { type AuthCredentials, makeAuthToken } from "./auth-token.js";
import { type ClientContext, controlFailure, readServerError, unexpectedState } from "./client-failures.js";
import { ClientStream } from "./client-stream.js";
import { IntervalClock } from "./interval-clock.js";
import { buildEnd, buildStart, type Iperf3JsonReport, microseconds, socketNumber } from "./json-report.js";
import { iperf3TestShape } from "./options.js";
import {
  ControlReader,
  cookieText,
  encodeJson,
  encodeState,
  MAX_PARAMS_JSON_BYTES,
  MAX_RESULTS_JSON_BYTES,
  makeCookie,
  State,
} from "./protocol.js";
import { buildClientResults, parsePeerResults } from "./results-document.js";
import { connectTcp } from "./tcp-connect.js";
import { TransferTally } from "./transfer-tally.js";

export const CLIENT_VERSION = "lambda-netbench 0.1.0";

export interface Iperf3ClientOptions {
  host: string;
  port: number;
  /** Test length after the omit period (-t). Also caps a byte-limited test. */
  timeSeconds: number;
  /** Streams per direction (-P). */
  parallel: number;
  reverse: boolean;
  bidir: boolean;
  omitSeconds: number;
  /** Bytes per write (-l). */
  blockBytes: number;
  /** -n: end once this many bytes moved after omit; 0 = time only. */
  byteLimit: number;
  connectTimeoutMs: number;
  reportIntervalSeconds: number;
  auth?: AuthCredentials | undefined;
  /** Our own byte samples (for the probe summary); default 250 ms. */
  sampleIntervalMs?: number;
  /** Hard deadline = connect timeout + time + omit + this margin. */
  deadlineMarginSeconds?: number;
  /** How long a refused control connect is retried (the stock server re-creates its socket after each test). */
  refusedRetryMs?: number;
}

export interface Iperf3ClientResult {
  report: Iperf3JsonReport;
  /** user + system CPU of this process from connect to IPERF_DONE. */
  cpuSeconds: number;
  /** RetransSegs delta of this network namespace over the run; null where unknown. */
  retransmits: number | null;
  /** Control connects retried after ECONNREFUSED. */
  retries: number;
  /** Our own counts of the measured direction(s) at the sample interval, measured after the omit period. */
  samples: IntervalSamples;
  /** The measured period on performance.now()'s clock, ms. */
  measuredPeriodMs: { from: number; to: number };
  /**
   * performance.now() when the data streams were closed, ms: a caller timing the link's idle
   * time starts here, not at TEST_END. Until the close the server still sends what its buffers
   * hold (a download on the lab's 78 Mbit/s shaper read 0.64-0.91 MB in the 63-91 ms from
   * TEST_END to the close, 2026-12-07), and that time moves with the results exchange.
   */
  streamsClosedMs: number;
  /** A download's bytes that arrived before the start mark: in the report's bytes, not in `samples`. */
  bytesBeforeStart: number;
}

// one buffer for all receiving streams (bytes are counted and dropped); 1 MiB lets one read(2)
// take whatever queued up: loopback A/B, 5 runs each, median 0.34 CPU s/GiB vs 0.40 at 256 KiB
const RECEIVE_BUFFER_BYTES = 1024 * 1024;
const DEFAULT_DEADLINE_MARGIN_SECONDS = 10;
const DEFAULT_REFUSED_RETRY_MS = 1_500;
const REFUSED_RETRY_STEP_MS = 100;

/** Runs one iperf3 test against a stock (or our) iperf3 server; rejects with a ProbeError. */
export function runIperf3Client(options: Iperf3ClientOptions): Promise<Iperf3ClientResult> {
  return new Iperf3ClientRun(options).run();
}

type Phase =
  | "connecting"
  | "waiting for PARAM_EXCHANGE"
  | "waiting for CREATE_STREAMS"
  | "creating streams"
  | "waiting for TEST_START"
  | "running"
  | "waiting for EXCHANGE_RESULTS"
  | "exchanging results"
  | "waiting for DISPLAY_RESULTS"
  | "done";

/**
 * The control loop of one test (iperf_handle_message_client in C): it reads state bytes and
 * switches on them, each state one step. The clock of the test (IntervalClock), the byte counts
 * (TransferTally, ClientStream) and the report builders (json-report.ts) live apart.
 */
class Iperf3ClientRun {
  private readonly cookie = makeCookie();
  private readonly where: string;
  private phase: Phase = "connecting";
  private control: Socket | undefined;
  private reader: ControlReader | undefined;
  private readonly streams: ClientStream[] = [];
  private readonly clock: IntervalClock;
  private readonly tally: TransferTally;
  private readonly timers: NodeJS.Timeout[] = [];
  private failRun: (error: Error) => void = () => {};
  private retries = 0;
  private readonly cpuClock = startCpuClock();
  private cpuPercentSinceConnect: () => CpuPercent = startCpuPercent();
  private cpuPercent: CpuPercent = { total: 0, user: 0, system: 0 };
  private startedAt = new Date();
  private testEnded = false;
  /** performance.now() when finish() closed the data streams (see Iperf3ClientResult). */
  private streamsClosedMs = 0;
  /** Set once the run settled: late connects are closed at once instead of leaking. */
  private cleanedUp = false;

  constructor(private readonly options: Iperf3ClientOptions) {
    this.where = `iperf3 server ${options.host}:${options.port}`;
    this.clock = new IntervalClock({
      reportIntervalSeconds: options.reportIntervalSeconds,
      bidir: options.bidir,
      sampleIntervalMs: options.sampleIntervalMs ?? 250,
    });
    this.tally = new TransferTally(
      () => this.endTest(),
      (error) => this.failRun(error),
      this.clock.sampler,
    );
  }

  async run(): Promise<Iperf3ClientResult> {
    const o = this.options;
    validateOptions(o);
    const margin = o.deadlineMarginSeconds ?? DEFAULT_DEADLINE_MARGIN_SECONDS;
    const deadlineMs = o.connectTimeoutMs + (o.timeSeconds + o.omitSeconds + margin) * 1000;
    const failure = new Promise<never>((_, reject) => {
      this.failRun = reject;
    });
    this.addTimer(
      setTimeout(
        () =>
          this.failRun(
            new ProbeError(
              "deadline",
              `${this.where}: no result within the ${(deadlineMs / 1000).toFixed(1)} s deadline (stuck ${this.phase})`,
            ),
          ),
        deadlineMs,
      ),
    );
    try {
      return await Promise.race([this.exchange(), failure]);
    } finally {
      this.cleanUp();
    }
  }

  private async exchange(): Promise<Iperf3ClientResult> {
    const countRetransmits = await startRetransmitCounter();
    const control = await this.connectControl();
    this.control = control;
    this.startedAt = new Date();
    this.cpuPercentSinceConnect = startCpuPercent();
    control.setNoDelay(true);
    // the control connection is idle during the test; keepalive keeps NAT state alive
    control.setKeepAlive(true, 30_000);
    const reader = new ControlReader(control, this.where);
    this.reader = reader;
    control.write(this.cookie);
    this.phase = "waiting for PARAM_EXCHANGE";
    let peerDocument: unknown;

    for (;;) {
      const state = await this.read(() => reader.readState());
      switch (state) {
        case State.PARAM_EXCHANGE:
          this.expectPhase(state, "waiting for PARAM_EXCHANGE");
          control.write(encodeJson(this.parameters()));
          this.phase = "waiting for CREATE_STREAMS";
          break;
        case State.CREATE_STREAMS:
          this.expectPhase(state, "waiting for CREATE_STREAMS");
          this.phase = "creating streams";
          await this.createStreams();
          this.phase = "waiting for TEST_START";
          break;
        case State.TEST_START:
          this.expectPhase(state, "waiting for TEST_START");
          this.startTest();
          this.phase = "running";
          break;
        case State.TEST_RUNNING:
          this.expectPhase(state, "running");
          for (const stream of this.streams) stream.startRunning();
          break;
        case State.EXCHANGE_RESULTS:
          this.expectPhase(state, "waiting for EXCHANGE_RESULTS");
          this.phase = "exchanging results";
          control.write(encodeJson(this.clientResults()));
          peerDocument = await this.read(() => reader.readJson(MAX_RESULTS_JSON_BYTES));
          this.phase = "waiting for DISPLAY_RESULTS";
          break;
        case State.DISPLAY_RESULTS:
          this.expectPhase(state, "waiting for DISPLAY_RESULTS");
          this.phase = "done";
          await this.finish(control, reader);
          return this.result(peerDocument, await countRetransmits());
        case State.ACCESS_DENIED:
          if (this.phase === "waiting for PARAM_EXCHANGE") {
            throw new ProbeError(
              "server-busy",
              `${this.where} is busy running another test (ACCESS_DENIED); try again later`,
            );
          }
          throw new ProbeError("protocol", `${this.where} sent ACCESS_DENIED while ${this.phase}`);
        case State.SERVER_ERROR:
          throw await readServerError(reader, this.context());
        case State.SERVER_TERMINATE:
          throw new ProbeError("server-terminated", `${this.where} was terminated while ${this.phase}`);
        default:
          throw unexpectedState(state, this.context());
      }
    }
  }

  private parameters(): Record<string, unknown> {
    const o = this.options;
    // flags are presence-based on the server: never send `"reverse": false`
    const params: Record<string, unknown> = {
      tcp: true,
      omit: o.omitSeconds,
      time: o.timeSeconds,
      num: o.byteLimit,
      blockcount: 0,
      parallel: o.parallel,
      len: o.blockBytes,
      pacing_timer: 1000,
      client_version: CLIENT_VERSION,
    };
    if (o.reverse) params.reverse = true;
    if (o.bidir) params.bidirectional = true;
    if (o.auth) params.authtoken = makeAuthToken(o.auth);
    const size = encodeJson(params).length - 4;
    if (size > MAX_PARAMS_JSON_BYTES) {
      throw new ProbeError("invalid-input", `iperf3 parameters are ${size} bytes (servers allow 8192)`);
    }
    return params;
  }

  private async connectControl(): Promise<Socket> {
    const o = this.options;
    const retryUntil = performance.now() + (o.refusedRetryMs ?? DEFAULT_REFUSED_RETRY_MS);
    for (;;) {
      try {
        const socket = await connectTcp({ host: o.host, port: o.port, timeoutMs: o.connectTimeoutMs });
        if (this.cleanedUp) {
          socket.destroy();
          throw new ProbeError("deadline", `${this.where}: run already ended`);
        }
        return socket;
      } catch (error) {
        // right after a test the stock server re-creates its listening socket: retry briefly
        const retry = isProbeError(error) && error.kind === "connection-refused" && !this.cleanedUp;
        if (!retry || performance.now() >= retryUntil) {
          throw error;
        }
        this.retries += 1;
        await new Promise((resolve) => setTimeout(resolve, REFUSED_RETRY_STEP_MS));
      }
    }
  }

  private async createStreams(): Promise<void> {
    const o = this.options;
    const count = o.bidir ? o.parallel * 2 : o.parallel;
    const block = Buffer.alloc(o.blockBytes);
    // not compressible, like C iperf3's random payload
    for (let i = 0; i < block.length; i += 1) block[i] = (i * 2654435761) >>> 24;
    const receiveBuffer = Buffer.allocUnsafe(RECEIVE_BUFFER_BYTES);
    // strictly one after another: the server numbers streams in accept order
    for (let index = 0; index < count; index += 1) {
      const stream = new ClientStream({
        host: o.host,
        port: o.port,
        connectTimeoutMs: o.connectTimeoutMs,
        cookie: this.cookie,
        id: index === 0 ? 1 : index + 2,
        localSends: o.bidir ? index < o.parallel : !o.reverse,
        block,
        receiveBuffer,
        tally: this.tally,
      });
      if (this.cleanedUp) return;
      this.streams.push(stream);
      await stream.open();
      // the deadline may have fired while this stream connected
      if (this.cleanedUp) stream.destroy();
    }
  }

  /** TEST_START: counting, the clock and the test's end (and omit end) timers start. */
  private startTest(): void {
    const o = this.options;
    this.tally.start(o.byteLimit, o.omitSeconds > 0);
    this.clock.start(this.streams, o.omitSeconds > 0);
    this.addTimer(setTimeout(() => this.endTest(), (o.timeSeconds + o.omitSeconds) * 1000));
    if (o.omitSeconds > 0) this.addTimer(setTimeout(() => this.endOmit(), o.omitSeconds * 1000));
  }

  /** End of -O: the measured period starts here. */
  private endOmit(): void {
    if (this.testEnded) return;
    this.clock.endOmit();
    this.tally.endOmit();
  }

  /** Time or byte limit reached: stop senders, take the CPU share, close the clock, then TEST_END. */
  private endTest(): void {
    if (this.testEnded) return;
    this.testEnded = true;
    for (const stream of this.streams) stream.stop();
    this.tally.stop();
    this.cpuPercent = this.cpuPercentSinceConnect();
    this.clock.stop();
    this.phase = "waiting for EXCHANGE_RESULTS";
    this.control?.write(encodeState(State.TEST_END));
  }

  /** DISPLAY_RESULTS: IPERF_DONE, then half-close; what the server sends afterwards is ignored. */
  private async finish(control: Socket, reader: ControlReader): Promise<void> {
    this.streamsClosedMs = performance.now();
    for (const stream of this.streams) stream.destroy();
    // 3.21 sends a spurious SERVER_ERROR trailer: reading is over
    reader.close(new ProbeError("protocol", "control reading finished"));
    await new Promise<void>((resolve) => {
      // bounded: a server that already closed must not cost us the finished result
      const timer = setTimeout(resolve, 1_000);
      control.end(encodeState(State.IPERF_DONE), () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private clientResults(): Record<string, unknown> {
    const o = this.options;
    return buildClientResults({
      cpuPercent: this.cpuPercent,
      senderHasRetransmits: o.reverse ? -1 : 0,
      streams: this.streams.map((stream, index) => ({
        id: stream.id,
        bytes: this.clock.measuredBytes(index),
        seconds: microseconds(this.clock.measuredSeconds),
      })),
    });
  }

  private result(peerDocument: unknown, retransmits: number | null): Iperf3ClientResult {
    const o = this.options;
    const peer = parsePeerResults(
      peerDocument,
      this.streams.map((stream) => stream.id),
    );
    const report: Iperf3JsonReport = {
      start: buildStart({
        connected: this.streams.map((stream) => stream.address),
        version: CLIENT_VERSION,
        systemInfo: `${os.type()} ${os.hostname()} ${os.release()} ${os.version()} ${os.machine()}`,
        startedAt: this.startedAt,
        host: o.host,
        port: o.port,
        cookie: cookieText(this.cookie),
        parallel: o.parallel,
        blockBytes: o.blockBytes,
        omitSeconds: o.omitSeconds,
        timeSeconds: o.timeSeconds,
        byteLimit: o.byteLimit,
        reverse: o.reverse,
        bidir: o.bidir,
        reportIntervalSeconds: o.reportIntervalSeconds,
      }),
      intervals: this.clock.intervals,
      end: buildEnd({
        streams: this.streams.map((stream, index) => ({
          id: stream.id,
          socket: socketNumber(index),
          localSends: stream.localSends,
          localBytes: this.clock.measuredBytes(index),
        })),
        localSeconds: this.clock.measuredSeconds,
        peer,
        bidir: o.bidir,
        cpuPercent: this.cpuPercent,
        localSentRetransmits: o.reverse ? null : retransmits,
      }),
    };
    if (peer.serverOutputText !== undefined) report.server_output_text = peer.serverOutputText;
    if (peer.serverOutputJson !== undefined) report.server_output_json = peer.serverOutputJson;
    return {
      report,
      cpuSeconds: this.cpuClock(),
      retransmits,
      retries: this.retries,
      samples: this.clock.samples,
      measuredPeriodMs: this.clock.measuredPeriodMs,
      streamsClosedMs: this.streamsClosedMs,
      bytesBeforeStart: this.clock.bytesBeforeStart,
    };
  }

  /** One control read; its failure gets its meaning in the current phase. */
  private async read<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      throw controlFailure(error, this.context());
    }
  }

  private context(): ClientContext {
    return {
      where: this.where,
      phase: this.phase,
      auth: this.options.auth !== undefined,
      afterParameters: this.phase === "waiting for CREATE_STREAMS",
    };
  }

  private expectPhase(state: number, phase: Phase): void {
    if (this.phase !== phase) {
      throw new ProbeError("protocol", `${this.where} sent state ${state} while ${this.phase}`);
    }
  }

  private addTimer(timer: NodeJS.Timeout): void {
    this.timers.push(timer);
  }

  private cleanUp(): void {
    this.cleanedUp = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.clock.dispose();
    this.tally.stop();
    for (const stream of this.streams) stream.destroy();
    this.reader?.close(new ProbeError("protocol", "run finished"));
    this.control?.destroy();
  }
}

/** The event schema's limits, held here too: the bucket probe and the CLI call the client directly. */
const clientLimitsSchema = z.object(iperf3TestShape);

function validateOptions(o: Iperf3ClientOptions): void {
  const checked = clientLimitsSchema.safeParse(o);
  const issue = checked.success ? undefined : checked.error.issues[0];
  if (issue) throw new ProbeError("invalid-input", `${issue.path.join(".")}: ${issue.message}`);
  if (o.reverse && o.bidir)
    throw new ProbeError("invalid-input", "bidir: reverse and bidir are mutually exclusive");
}
