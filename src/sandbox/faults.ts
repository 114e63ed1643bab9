import { hashSeed, mulberry32 } from './rng.js';

export type FaultKind = 'html502' | 'reset' | 'stall';

export const FAULT_KINDS: readonly FaultKind[] = ['html502', 'reset', 'stall'];

/**
 * Decides which requests fail the way networks and proxies fail. Only the FIRST attempt of a request
 * (same method and URL) can fault, so any client that retries gets through; the decision is a hash of
 * the URL, so a given sandbox seed faults the same requests every time, whatever the request order.
 */
export class FaultPlan {
  private readonly attempted = new Set<string>();

  constructor(
    private readonly share: number,
    private readonly kinds: readonly FaultKind[] = FAULT_KINDS,
    private readonly seed = 1,
  ) {}

  decide(requestKey: string): FaultKind | undefined {
    if (this.share <= 0 || this.kinds.length === 0) return undefined;
    const first = !this.attempted.has(requestKey);
    this.attempted.add(requestKey);
    if (!first) return undefined;
    const draw = mulberry32(hashSeed(this.seed, 'fault', requestKey));
    if (draw() >= this.share) return undefined;
    return this.kinds[Math.floor(draw() * this.kinds.length)];
  }

  /** Forget which requests were tried, so the next attempt of each is a first attempt again. */
  reset(): void {
    this.attempted.clear();
  }
}

export const BAD_GATEWAY_HTML =
  '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>' +
  '<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n';
