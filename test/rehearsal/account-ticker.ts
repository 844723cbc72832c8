/**
 * What happens in the account between the CLI's calls (an instance booting, CloudFormation
 * creating a schedule): steps run one after the other every second, like a watchdog timer. A
 * step that fails is recorded, so a test can fail on it instead of waiting on a "not ready".
 * Passes never overlap: a test's pass waits for the timer's, or two passes would both see a
 * schedule missing and both create it (the second fails with "already exists").
 */
export class AccountTicker {
  readonly problems: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  /** A pass is waiting to start (the timer then adds none). */
  private queued = false;

  constructor(
    private readonly steps: { name: string; run: () => Promise<void> }[],
    private readonly intervalMs = 1_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      // a pass still under way when the timer fires again is enough: no queue builds up
      if (!this.queued) void this.tick();
    }, this.intervalMs);
  }

  /** One pass after any under way (tests that need the account settled before the next command). */
  tick(): Promise<void> {
    this.queued = true;
    this.running = this.running.then(async () => {
      this.queued = false;
      await this.pass();
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    for (const step of this.steps) {
      try {
        await step.run();
      } catch (error) {
        this.problems.push(`${step.name}: ${(error as Error).message}`);
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
