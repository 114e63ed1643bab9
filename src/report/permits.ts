/**
 * A counting semaphore: at most `limit` holders at once, the others wait in arrival order. The PDF
 * renderer uses it so a batch of any size keeps exactly `chromium.concurrency` pages printing.
 */
export class Permits {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  async acquire(): Promise<void> {
    if (this.held < this.limit) {
      this.held++;
      return;
    }
    // The releaser hands its permit straight to the next waiter, so `held` never drops in between.
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held--;
  }
}
