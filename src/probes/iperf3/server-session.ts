import { randomBytes } from "node:crypto";
import type { Socket } from "node:net";
import { emptySamples, IntervalSampler, type IntervalSamples } from "../interval-sampler.js";
import { AcknowledgedTotal, UnacknowledgedBytes } from "../unacknowledged-bytes.js";
import { ControlReader, encodeJson, encodeState, MAX_PARAMS_JSON_BYTES, State } from "./protocol.js";
import { checkAuthToken, type ServerAuth } from "./server-auth.js";
import { denyAccess, peerAddress } from "./server-connection.js";
import { encodeServerError, IperfErrno, ServerFailure } from "./server-failure.js";
import { formatServerIntervals, SERVER_SAMPLE_INTERVAL_MS } from "./server-intervals.js";
import { parseTestParams, type TestParams } from "./server-params.js";
import type { ReceivePath } from "./server-receive.js";
import { buildServerResults, streamId } from "./server-results.js";
import { DataStream, SendBudget } from "./server-stream.js";

export type SessionPhase = "params" | "create-streams" | "running" | "results" | "done";

/** Timeouts that keep one bad client from holding the port (roughly the stock 3.15+ values). */
export interface ServerTimeouts {
  /** A new connection must deliver its 37-byte cookie within this (3.12 waits forever). */
  cookieMs: number;
  paramsMs: number;
  /** All data streams must connect within this after CREATE_STREAMS. */
  streamsMs: number;
  resultsMs: number;
  doneMs: number;
  /** The C server's watchdog: TEST_END must come within time + omit + this. */
  watchdogMarginSeconds: number;
  /** No byte moved on any stream for this long: the client is gone (iperf3's --rcv-timeout). */
  idleMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  cookieMs: 10_000,
  paramsMs: 30_000,
  streamsMs: 30_000,
  resultsMs: 30_000,
  doneMs: 10_000,
  watchdogMarginSeconds: 40,
  idleMs: 120_000,
};
const IDLE_CHECK_MS = 5_000;
const MAX_CLIENT_RESULTS_BYTES = 1024 * 1024;
const CLOSE_GRACE_MS = 2_000;

/** The client stopped the test (CLIENT_TERMINATE), or the server is shutting down. */
class TestInterrupted extends Error {}

export interface SessionOptions {
  auth?: ServerAuth;
  log: (line: string) => void;
  timeouts: ServerTimeouts;
  /** Interval of the server's own samples; 1 s when omitted. */
  sampleIntervalMs?: number;
  /** How data streams count received bytes (chosen by the server's start-up self-test). */
  receivePath: ReceivePath;
  /** Per-flow cap on every data stream, payload bits per second (the lab's flow cap); null for none. */
  flowCapBitsPerSecond?: number | null;
}

/** What the server measured in one test, for whoever started it (the CLI, tests). */
export interface ServerTestReport {
  client: string;
  /** Bytes counted over all streams (received, or handed to the kernel) in the measured period. */
  bytes: number;
  seconds: number;
  /** The counted bytes per interval, each with its measured start and length. */
  samples: IntervalSamples;
}

/**
 * One iperf3 test on the server side, from the control connection's cookie to IPERF_DONE
 * (protocol doc 2.3 and section 10). `run()` never throws: every failure is logged, reported
 * to the client where the protocol allows, and ends with all sockets closed.
 */
export class ServerSession {
  phase: SessionPhase = "params";
  private readonly reader: ControlReader;
  private readonly client: string;
  private readonly streams: DataStream[] = [];
  private params: TestParams | undefined;
  private budget = new SendBudget(0, 0);
  private block = Buffer.alloc(0);
  private readonly timers = new Set<NodeJS.Timeout>();
  private interrupted: Error | undefined;
  private onStreamsReady: (() => void) | undefined;
  private onSetupFailed: ((error: Error) => void) | undefined;
  private startMs = 0;
  private endMs = 0;
  private cpuStart = process.cpuUsage();
  private cpuUsed = { user: 0, system: 0 };
  private wallStartMs = 0;
  /** Samples every counted byte of the test (received or sent): one direction, or both in bidir. */
  private readonly sampler: IntervalSampler;
  private samples: IntervalSamples;
  /** The sending streams' bytes not yet acknowledged by the client. */
  private readonly unacknowledged = new UnacknowledgedBytes();
  private readonly acknowledged = new AcknowledgedTotal(
    this.unacknowledged,
    () => this.countedBytes(true),
    () => this.countedBytes(false),
  );

  constructor(
    private readonly control: Socket,
    private readonly cookie: Buffer,
    private readonly options: SessionOptions,
  ) {
    this.client = peerAddress(control);
    const sampleIntervalMs = options.sampleIntervalMs ?? SERVER_SAMPLE_INTERVAL_MS;
    // sent bytes count what crossed the link: what the kernel accepted minus what it still holds
    // unacknowledged (see UnacknowledgedBytes), so the first interval holds no send-buffer fill
    this.sampler = new IntervalSampler(sampleIntervalMs, this.acknowledged.total);
    this.samples = emptySamples(sampleIntervalMs);
    control.setNoDelay(true);
    control.setKeepAlive(true, 30_000);
    this.reader = new ControlReader(control, `client ${this.client}`, MAX_CLIENT_RESULTS_BYTES + 64);
    control.resume();
  }

  /** Offers a connection that arrived with a complete cookie during CREATE_STREAMS. */
  offerDataConnection(socket: Socket, cookie: Buffer): void {
    const params = this.params;
    const expected = this.expectedStreams();
    if (this.phase !== "create-streams" || !params || !cookie.equals(this.cookie)) {
      denyAccess(socket);
      return;
    }
    const index = this.streams.length;
    const sends = params.reverse || (params.bidirectional && index >= params.parallel);
    if (params.noDelay) socket.setNoDelay(true);
    this.streams.push(
      new DataStream(
        streamId(index),
        socket,
        sends,
        this.block,
        this.budget,
        params.bandwidthBitsPerSecond,
        this.options.receivePath,
        this.options.flowCapBitsPerSecond ?? null,
      ),
    );
    if (this.streams.length === expected) this.onStreamsReady?.();
  }

  /** The test's figures as the server measured them (empty samples before TEST_END). */
  report(): ServerTestReport {
    return {
      client: this.client,
      bytes: this.streams.reduce((sum, stream) => sum + stream.countedBytes, 0),
      seconds: this.durationSeconds(),
      samples: this.samples,
    };
  }

  /** Server shutdown: SERVER_TERMINATE to a client mid-test, then close everything. */
  terminate(): void {
    if (this.phase === "create-streams" || this.phase === "running") {
      this.control.write(encodeState(State.SERVER_TERMINATE));
    }
    this.interrupt(new TestInterrupted("the server is shutting down"));
  }

  async run(): Promise<void> {
    try {
      await this.exchangeParams();
      await this.createStreams();
      const state = await this.runTest();
      if (state === State.TEST_END) await this.exchangeResults();
    } catch (error) {
      this.fail(error);
    } finally {
      this.phase = "done";
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
      for (const stream of this.streams) stream.destroy();
      this.reader.close(new Error("test over"));
      this.control.end();
      setTimeout(() => this.control.destroy(), CLOSE_GRACE_MS).unref();
    }
  }

  private async exchangeParams(): Promise<void> {
    this.control.write(encodeState(State.PARAM_EXCHANGE));
    const { paramsMs } = this.options.timeouts;
    const timer = this.arm(paramsMs, () => new Error(`no parameters within ${paramsMs / 1000} s`));
    const length = (await this.reader.readExact(4)).readUInt32BE(0);
    if (length === 0 || length > MAX_PARAMS_JSON_BYTES) {
      throw new ServerFailure(
        IperfErrno.IERECVPARAMS,
        `parameter JSON of ${length} bytes refused (allowed 1..${MAX_PARAMS_JSON_BYTES})`,
      );
    }
    const body = await this.reader.readExact(length);
    this.disarm(timer);
    let document: unknown;
    try {
      document = JSON.parse(body.toString("utf8"));
    } catch {
      throw new ServerFailure(IperfErrno.IERECVPARAMS, "parameters are not valid JSON");
    }
    const params = parseTestParams(document);
    if (this.options.auth) {
      const user = checkAuthToken(params.authToken, this.options.auth, Math.floor(Date.now() / 1000));
      this.options.log(`client ${this.client}: authenticated as ${user}`);
    }
    if (params.ignored.length > 0) {
      this.options.log(
        `client ${this.client}: ignoring ${params.ignored.join(", ")} (socket options Node cannot set)`,
      );
    }
    this.params = params;
    this.budget = new SendBudget(params.byteLimit, params.blockLimit);
    // the C server fills its send buffer with random bytes, so compression on the path gains nothing
    this.block = params.reverse || params.bidirectional ? randomBytes(params.blockBytes) : this.block;
  }

  private async createStreams(): Promise<void> {
    const expected = this.expectedStreams();
    const ready = new Promise<void>((resolve, reject) => {
      this.onStreamsReady = resolve;
      this.onSetupFailed = reject;
    });
    this.phase = "create-streams";
    this.control.write(encodeState(State.CREATE_STREAMS));
    const timer = this.arm(
      this.options.timeouts.streamsMs,
      () =>
        new Error(
          `only ${this.streams.length} of ${expected} data streams connected within ${this.options.timeouts.streamsMs / 1000} s`,
        ),
    );
    // the control connection may end or say CLIENT_TERMINATE while streams connect
    this.nextState = this.reader.readState();
    this.nextState.catch(() => {});
    const controlSpoke = this.nextState.then((state) => {
      throw this.unexpectedState(state, "while the data streams connected");
    });
    controlSpoke.catch(() => {}); // once the streams are in, the test phase reads this state
    await Promise.race([ready, controlSpoke]);
    this.disarm(timer);
  }

  private nextState: Promise<number> = Promise.resolve(0);

  /** TEST_START, TEST_RUNNING, then wait for the client's next state byte. */
  private async runTest(): Promise<number> {
    const params = this.params as TestParams;
    this.phase = "running";
    this.control.write(Buffer.from([State.TEST_START, State.TEST_RUNNING]));
    this.startMs = performance.now();
    this.wallStartMs = this.startMs;
    this.cpuStart = process.cpuUsage();
    for (const stream of this.streams) {
      stream.start();
      const { localPort, remotePort, remoteAddress } = stream.socket;
      if (stream.sends) this.unacknowledged.track(localPort, remotePort, remoteAddress);
    }
    this.sampler.start(this.startMs);
    if (params.omitSeconds > 0) {
      this.arm(params.omitSeconds * 1000, () => {
        this.startMs = performance.now();
        this.budget.reset();
        for (const stream of this.streams) stream.resetCounters();
        this.acknowledged.reset();
        this.sampler.start(this.startMs);
        return undefined;
      });
    }
    if (params.timeSeconds > 0) {
      const margin = this.options.timeouts.watchdogMarginSeconds;
      const limitSeconds = params.timeSeconds + params.omitSeconds + margin;
      this.arm(
        limitSeconds * 1000,
        () =>
          new ServerFailure(
            IperfErrno.IESERVERTESTDURATIONEXPIRED,
            `no TEST_END within time + omit + ${margin} = ${limitSeconds} s`,
          ),
      );
    }
    this.watchIdle();
    const state = await this.nextState;
    this.endMs = performance.now();
    for (const stream of this.streams) stream.stop();
    this.samples = this.sampler.stop(this.endMs);
    const cpu = process.cpuUsage(this.cpuStart);
    this.cpuUsed = { user: cpu.user, system: cpu.system };
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (state === State.TEST_END) return state;
    if (state === State.CLIENT_TERMINATE || state === State.IPERF_DONE) {
      this.options.log(`${this.summary()} (interrupted by the client)`);
      return state;
    }
    throw this.unexpectedState(state, "during the test");
  }

  private async exchangeResults(): Promise<void> {
    // the C server closes its data sockets at TEST_END: in-flight bytes are not counted
    for (const stream of this.streams) stream.destroy();
    this.phase = "results";
    this.control.write(encodeState(State.EXCHANGE_RESULTS));
    this.arm(this.options.timeouts.resultsMs, () => new Error("no results from the client in time"));
    const length = (await this.reader.readExact(4)).readUInt32BE(0);
    if (length === 0 || length > MAX_CLIENT_RESULTS_BYTES) {
      throw new Error(`client results JSON of ${length} bytes refused`);
    }
    await this.reader.readExact(length); // the client's view; ours is what we log
    const summary = this.summary();
    const results = buildServerResults({
      streams: this.streams.map((stream) => ({
        id: stream.id,
        sends: stream.sends,
        bytes: stream.countedBytes,
      })),
      durationSeconds: this.durationSeconds(),
      cpuUserMicros: this.cpuUsed.user,
      cpuSystemMicros: this.cpuUsed.system,
      wallMicros: (this.endMs - this.wallStartMs) * 1000,
      ...(this.params?.getServerOutput
        ? { serverOutputText: `${[...formatServerIntervals(this.samples), summary].join("\n")}\n` }
        : {}),
    });
    this.control.write(Buffer.concat([encodeJson(results), encodeState(State.DISPLAY_RESULTS)]));
    for (const line of formatServerIntervals(this.samples))
      this.options.log(`client ${this.client}: ${line}`);
    this.options.log(summary);
    const doneTimer = this.arm(this.options.timeouts.doneMs, () => new TestInterrupted("no IPERF_DONE"));
    try {
      await this.reader.readState(); // IPERF_DONE (16); anything else ends the test just the same
    } catch {
      // the results are out; a client that closes without IPERF_DONE changes nothing
    }
    this.disarm(doneTimer);
  }

  /** One line per test: client, direction, streams, bytes and rate, as the server counted them. */
  private summary(): string {
    const params = this.params as TestParams;
    const mode = params.bidirectional
      ? "bidir"
      : params.reverse
        ? "reverse (server sends)"
        : "normal (client sends)";
    const seconds = this.durationSeconds();
    const part = (sends: boolean, label: string) => {
      const bytes = this.streams.filter((s) => s.sends === sends).reduce((sum, s) => sum + s.countedBytes, 0);
      const mbits = seconds > 0 ? (bytes * 8) / seconds / 1e6 : 0;
      return `${label} ${bytes} bytes = ${mbits.toFixed(1)} Mbit/s`;
    };
    const parts: string[] = [];
    if (!params.reverse || params.bidirectional) parts.push(part(false, "received"));
    if (params.reverse || params.bidirectional) parts.push(part(true, "sent"));
    const broken = this.streams.filter((s) => s.error !== undefined).length;
    return (
      `test from ${this.client}: ${mode}, ${params.parallel} stream(s), ${seconds.toFixed(3)} s: ` +
      `${parts.join(", ")}${broken > 0 ? ` (${broken} stream(s) broke)` : ""}`
    );
  }

  /** What the sending streams (`sending`) or the receiving ones counted. */
  private countedBytes(sending: boolean): number {
    let total = 0;
    for (const stream of this.streams) if (stream.sends === sending) total += stream.countedBytes;
    return total;
  }

  private durationSeconds(): number {
    return Math.max(0, (this.endMs - this.startMs) / 1000);
  }

  private expectedStreams(): number {
    const params = this.params;
    if (!params) return 0;
    return params.bidirectional ? params.parallel * 2 : params.parallel;
  }

  private unexpectedState(state: number, when: string): Error {
    if (state === State.CLIENT_TERMINATE) return new TestInterrupted(`the client terminated ${when}`);
    return new ServerFailure(IperfErrno.IEMESSAGE, `unexpected state byte ${state} ${when}`);
  }

  /** Ends the test when no byte moved on any stream for timeouts.idleMs. */
  private watchIdle(): void {
    let lastMoved = -1;
    let idleSinceMs = performance.now();
    const check = () => {
      const moved =
        this.streams.reduce((sum, stream) => sum + stream.rawReceivedBytes, 0) + this.budget.bytesSent;
      const now = performance.now();
      if (moved !== lastMoved) {
        lastMoved = moved;
        idleSinceMs = now;
      } else if (now - idleSinceMs >= this.options.timeouts.idleMs) {
        this.interrupt(new Error(`no data moved for ${this.options.timeouts.idleMs / 1000} s`));
        return;
      }
      this.arm(Math.min(IDLE_CHECK_MS, this.options.timeouts.idleMs), () => {
        check();
        return undefined;
      });
    };
    check();
  }

  /** Arms a timer whose result, if an Error, interrupts the test. */
  private arm(ms: number, onFire: () => Error | undefined): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const error = onFire();
      if (error) this.interrupt(error);
    }, ms);
    this.timers.add(timer);
    return timer;
  }

  private disarm(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  private interrupt(error: Error): void {
    this.interrupted ??= error;
    this.onSetupFailed?.(error);
    this.reader.close(error);
  }

  private fail(error: unknown): void {
    const cause = this.interrupted ?? error;
    const message = cause instanceof Error ? cause.message : String(cause);
    const where = `client ${this.client}`;
    if (cause instanceof ServerFailure) {
      this.options.log(`${where}: refused: ${message} (SERVER_ERROR ${cause.code})`);
      if (!this.control.destroyed) this.control.write(encodeServerError(cause.code, cause.errno));
      return;
    }
    if (cause instanceof TestInterrupted) {
      this.options.log(`${where}: ${message}`);
      return;
    }
    this.options.log(`${where}: test ended: ${message}`);
  }
}
