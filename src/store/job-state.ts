import { scrubOrNull } from '../secrets.js';
import type { Store } from './sql.js';

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

const COLUMNS = 'job, last_slot_at, last_started_at, last_finished_at, last_outcome, last_error, cursor';

export async function getJobState(store: Store, job: string): Promise<JobState | undefined> {
  return store.get<JobState>(`SELECT ${COLUMNS} FROM job_state WHERE job = ?`, [job]);
}

export async function listJobStates(store: Store): Promise<JobState[]> {
  return store.all<JobState>(`SELECT ${COLUMNS} FROM job_state ORDER BY job`);
}

/** Sets the slot reference without running anything (first start: nothing was missed yet). */
export async function initJobSlot(store: Store, job: string, slot: number): Promise<void> {
  await store.run('INSERT INTO job_state (job, last_slot_at) VALUES (?, ?) ON CONFLICT (job) DO NOTHING', [
    job,
    slot,
  ]);
}

export async function recordJobStart(store: Store, job: string, at: number): Promise<void> {
  await store.run(
    `INSERT INTO job_state (job, last_started_at) VALUES (?, ?)
     ON CONFLICT (job) DO UPDATE SET last_started_at = excluded.last_started_at`,
    [job, at],
  );
}

export async function recordJobEnd(
  store: Store,
  job: string,
  end: { at: number; slot?: number; outcome: 'ok' | 'failed'; error?: string | null },
): Promise<void> {
  // Columns of the existing row are qualified: PostgreSQL calls a bare name ambiguous beside `excluded`.
  // The slot only moves forward: with several daemons on one store, runs of older slots (a takeover)
  // may end after newer ones.
  await store.run(
    `INSERT INTO job_state (job, last_slot_at, last_finished_at, last_outcome, last_error)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (job) DO UPDATE SET last_slot_at = CASE
         WHEN job_state.last_slot_at IS NULL THEN excluded.last_slot_at
         WHEN excluded.last_slot_at IS NULL OR excluded.last_slot_at < job_state.last_slot_at
           THEN job_state.last_slot_at
         ELSE excluded.last_slot_at END,
       last_finished_at = excluded.last_finished_at, last_outcome = excluded.last_outcome,
       last_error = excluded.last_error`,
    // Scrubbed as it is stored: the text may quote a secret, and a stored row outlives its rotation.
    [job, end.slot ?? null, end.at, end.outcome, scrubOrNull(end.error ?? null)],
  );
}

export async function getJobCursor<T>(store: Store, job: string): Promise<T | undefined> {
  const raw = (await getJobState(store, job))?.cursor;
  return raw ? (JSON.parse(raw) as T) : undefined;
}

export async function setJobCursor(store: Store, job: string, cursor: unknown): Promise<void> {
  await store.run(
    `INSERT INTO job_state (job, cursor) VALUES (?, ?)
     ON CONFLICT (job) DO UPDATE SET cursor = excluded.cursor`,
    [job, JSON.stringify(cursor)],
  );
}
