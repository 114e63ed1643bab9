import { scrubOrNull } from '../secrets.js';
import type { Store } from '../store/db.js';

/**
 * What the scheduler remembers per job across restarts (table `job_state`, migration 2): the slot it
 * last fired for, when and how its last run ended, and a small JSON cursor the job itself owns.
 */
export interface JobState {
  job: string;
  last_slot_at: number | null;
  last_started_at: number | null;
  last_finished_at: number | null;
  last_outcome: 'ok' | 'failed' | null;
  last_error: string | null;
  cursor: string | null;
}

export function getJobState(store: Store, job: string): JobState | undefined {
  return store.db.prepare('SELECT * FROM job_state WHERE job = ?').get(job) as JobState | undefined;
}

export function listJobStates(store: Store): JobState[] {
  return store.db.prepare('SELECT * FROM job_state ORDER BY job').all() as JobState[];
}

/** Sets the slot reference without running anything (first start: nothing was missed yet). */
export function initJobSlot(store: Store, job: string, slot: number): void {
  store.db
    .prepare('INSERT INTO job_state (job, last_slot_at) VALUES (?, ?) ON CONFLICT (job) DO NOTHING')
    .run(job, slot);
}

export function recordJobStart(store: Store, job: string, at: number): void {
  store.db
    .prepare(
      `INSERT INTO job_state (job, last_started_at) VALUES (?, ?)
       ON CONFLICT (job) DO UPDATE SET last_started_at = excluded.last_started_at`,
    )
    .run(job, at);
}

export function recordJobEnd(
  store: Store,
  job: string,
  end: { at: number; slot?: number; outcome: 'ok' | 'failed'; error?: string | null },
): void {
  store.db
    .prepare(
      `INSERT INTO job_state (job, last_slot_at, last_finished_at, last_outcome, last_error)
       VALUES (@job, @slot, @at, @outcome, @error)
       ON CONFLICT (job) DO UPDATE SET last_slot_at = COALESCE(@slot, last_slot_at),
         last_finished_at = @at, last_outcome = @outcome, last_error = @error`,
    )
    // Scrubbed as it is stored: the text may quote a secret, and a stored row outlives its rotation.
    .run({
      job,
      slot: end.slot ?? null,
      at: end.at,
      outcome: end.outcome,
      error: scrubOrNull(end.error ?? null),
    });
}

export function getJobCursor<T>(store: Store, job: string): T | undefined {
  const raw = getJobState(store, job)?.cursor;
  return raw ? (JSON.parse(raw) as T) : undefined;
}

export function setJobCursor(store: Store, job: string, cursor: unknown): void {
  store.db
    .prepare(
      `INSERT INTO job_state (job, cursor) VALUES (?, ?)
       ON CONFLICT (job) DO UPDATE SET cursor = excluded.cursor`,
    )
    .run(job, JSON.stringify(cursor));
}
