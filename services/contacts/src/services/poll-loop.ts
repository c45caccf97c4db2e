import { Logger } from '@nestjs/common';

/**
 * Runs `tick` every `intervalMs`, or at once after a kick; again immediately while a tick reports it found work.
 * One tick at a time. `stop` waits for the tick in progress.
 */
export class PollLoop {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private kicked = false;
  private readonly log: Logger;

  constructor(
    private readonly name: string,
    private readonly tick: () => Promise<boolean>,
    private readonly intervalMs: number,
  ) {
    this.log = new Logger(name);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.kicked = false;
      let more = false;
      try {
        more = await this.tick();
      } catch (e) {
        this.log.error(`${this.name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      }
      if (this.running && !more && !this.kicked) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => resolve(), this.intervalMs);
          this.wake = () => {
            clearTimeout(timer);
            this.wake = undefined;
            resolve();
          };
        });
      }
    }
  }
}
