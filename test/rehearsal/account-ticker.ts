/**
 * What happens in the account between the CLI's calls (an instance booting, CloudFormation
 * creating a schedule): steps run one after the other every second, like a watchdog timer. A
 * step that fails is recorded, so a test can fail on it instead of waiting on a "not ready".
 */
export class AccountTicker {
  readonly problems: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly steps: { name: string; run: () => Promise<void> }[],
    private readonly intervalMs = 1_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.tick());
    }, this.intervalMs);
  }

  /** One pass now (tests that need the account settled before the next command). */
  async tick(): Promise<void> {
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
