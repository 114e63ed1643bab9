import { backoffCeiling } from '../api/retry-timing.js';
import type { Clock } from '../clock.js';
import { scrub } from '../secrets.js';

/**
 * What each loop of the daemon last did, for /readyz and the log. A loop (a scheduler job, a worker
 * loop) reports every cycle: `completed` when it did its work (the store answered), `failed` when
 * the store or anything else threw (it backs off and goes on), `expect` when it knows by when its
 * next cycle must have happened (a job's next slot). Ready means: no loop failing now, and none past
 * the time it said its next cycle would come, plus `STALL_GRACE_MS`.
 */

/** How late a cycle may be before the loop counts as stalled (a slot's claim, a worker's look). */
export const STALL_GRACE_MS = 60_000;

interface LoopState {
  role: string;
  failingSince?: number;
  error?: string;
  expectBy?: number;
}

export class RoleHealth {
  private readonly loops = new Map<string, LoopState>();

  constructor(
    private readonly clock: Clock,
    private readonly graceMs = STALL_GRACE_MS,
  ) {}

  /** The loop `name` of `role` did a cycle; `nextBy`: when its next one is due (none: no deadline). */
  completed(name: string, role: string, nextBy?: number): void {
    this.loops.set(name, { role, expectBy: nextBy });
  }

  /** The loop's next cycle is due by `at` (it is about to sleep until then). */
  expect(name: string, role: string, at: number | undefined): void {
    const state = this.state(name, role);
    state.expectBy = at;
  }

  /** The cycle threw; the loop backs off and tries again. True when this starts a failing spell. */
  failed(name: string, role: string, error: unknown): boolean {
    const state = this.state(name, role);
    const first = state.failingSince === undefined;
    state.failingSince ??= this.clock.now();
    state.error = messageOf(error);
    return first;
  }

  /** Whether the loop is in a failing spell (so its recovery is worth a line). */
  isFailing(name: string): boolean {
    return this.loops.get(name)?.failingSince !== undefined;
  }

  /** The loop ended for good (past `active_until`): no deadline any more. */
  forget(name: string): void {
    this.loops.delete(name);
  }

  /** Undefined when every loop is fine, else one line naming the role and loop at fault. */
  problem(): string | undefined {
    const now = this.clock.now();
    for (const [name, state] of this.loops) {
      if (state.failingSince !== undefined) {
        return `${state.role} role: ${name} failing since ${new Date(state.failingSince).toISOString()}: ${state.error}`;
      }
    }
    for (const [name, state] of this.loops) {
      if (state.expectBy !== undefined && now > state.expectBy + this.graceMs) {
        return `${state.role} role: ${name} has not completed a cycle since ${new Date(state.expectBy).toISOString()}`;
      }
    }
    return undefined;
  }

  private state(name: string, role: string): LoopState {
    let state = this.loops.get(name);
    if (!state) {
      state = { role };
      this.loops.set(name, state);
    }
    return state;
  }
}

/**
 * How long a loop waits after its `failures`-th failure in a row (1 = the first) before it tries
 * again: 1 s doubling to at most `capMs` (default 30 s), so a store back after a restart is used
 * within seconds and one down for an hour is asked twice a minute.
 */
export function loopRetryMs(failures: number, capMs = 30_000): number {
  return backoffCeiling(Math.max(0, failures - 1), { baseMs: 1_000, capMs });
}

/** One line, secrets scrubbed: it ends up in /readyz and the log. */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return scrub(text.split('\n')[0] ?? text);
}
