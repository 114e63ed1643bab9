export interface SandboxStats {
  total: number;
  byEndpoint: Record<string, number>;
  byErrorCode: Record<string, number>;
  faults: number;
  /**
   * Sandbox-only, for tests that count refetches: how often each payload request (a metric endpoint's
   * path below the base URL, with its query) arrived past the auth and rate checks, whether or not the
   * client waited for its answer.
   */
  byPayload: Record<string, number>;
}

export function emptyStats(): SandboxStats {
  return { total: 0, byEndpoint: {}, byErrorCode: {}, faults: 0, byPayload: {} };
}

/** Zeroes the counters in place: callers hold on to the object `Sandbox.stats` handed out. */
export function resetStats(stats: SandboxStats): void {
  stats.total = 0;
  stats.faults = 0;
  stats.byEndpoint = {};
  stats.byErrorCode = {};
  stats.byPayload = {};
}

export function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}
