import type { Clock } from '../clock.js';
import type { RequestHistory } from './request-history.js';

/** The record of a start made while deciding it: the history's row, or why the history refused. */
export type StartRecord = { row: unknown } | { error: unknown };

/** When the head of a budget's queue may start, the time that was decided at, and its record if made. */
export interface StartDecision {
  at: number;
  now: number;
  logged?: StartRecord;
}

/**
 * What deciding a start reads from the budget. The functions are read when called: the budget's
 * window and limits may change while the store is waited for (a release, a reload).
 */
export interface StartInputs {
  key: string;
  clock: Clock;
  history?: RequestHistory;
  windowMs(): number;
  /** This process's finished requests, ascending. */
  own(): readonly number[];
  /** The earliest start the window allows, with `finished` as the requests that count. */
  startAt(finished: readonly number[], now: number): number;
}

/**
 * When the head of the queue may start. With a history shared by several processes, the window is
 * this process's requests plus what the others recorded, read under the store's write lock together
 * with the record of this start, so two processes can never both take the last slot and any number
 * of them stay within the key's limit. `logged` is set when the start was recorded here.
 */
export async function decideStart(inputs: StartInputs): Promise<StartDecision> {
  const { key, clock, history } = inputs;
  const step = async (): Promise<StartDecision> => {
    const now = clock.now();
    const others = (await history?.others?.(key, now - inputs.windowMs(), now)) ?? [];
    const own = inputs.own();
    const finished = others.length ? [...own, ...others].sort((a, b) => a - b) : own;
    const at = inputs.startAt(finished, now);
    if (at > now || !history?.exclusive) return { at, now };
    return { at, now, logged: { row: await history.record(key, now) } };
  };
  if (!history?.others || !history.exclusive) return step();
  // Other processes' requests only add to the window, so they can only move a start later: while
  // this process's own requests already say wait, it waits without asking the store. One locked
  // read per grant instead of one more per wake-up (on PostgreSQL, four round trips each).
  const now = clock.now();
  const ownAt = inputs.startAt(inputs.own(), now);
  if (ownAt > now) return { at: ownAt, now };
  try {
    return await history.exclusive(key, step);
  } catch (error) {
    // The store refused (full disk, locked too long): the head fails; never start unrecorded.
    return { at: clock.now(), now: clock.now(), logged: { error } };
  }
}
