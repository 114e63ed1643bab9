import type { Clock } from '../clock.js';

/**
 * The sandbox's rate limit: a sliding window per API key. A request is admitted when fewer than
 * `requests` admitted requests of the key started in the last `windowMs`; admitted requests are
 * recorded, refused ones (-145) are not. So a client that waits until its oldest request leaves the
 * window always gets through — and one that keeps hammering is refused until it stops.
 */
export class SlidingWindow {
  private readonly starts = new Map<string, number[]>();

  constructor(
    readonly requests: number,
    readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  tryAdmit(key: string): boolean {
    const now = this.clock.now();
    const recent = (this.starts.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (recent.length >= this.requests) {
      this.starts.set(key, recent);
      return false;
    }
    recent.push(now);
    this.starts.set(key, recent);
    return true;
  }

  /** Admitted requests of the key inside the current window. */
  used(key: string): number {
    const now = this.clock.now();
    return (this.starts.get(key) ?? []).filter((t) => t > now - this.windowMs).length;
  }
}
