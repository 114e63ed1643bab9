import { nextFireTime } from '../config/cron.js';
import { zoneFormat } from './zone-format.js';

/**
 * When a scheduled thing may fire: `enabled`, `active_from` / `active_until` and `max_delay` as the
 * config declares them (config/sections.ts `lifecycleFields`). Reports use it today; alerts take the
 * same fields, so nothing here knows what a report is. Pure functions of an injected instant.
 */
export interface Lifecycle {
  enabled: boolean;
  /** First day it may fire, YYYY-MM-DD in `timezone`. */
  active_from?: string;
  /** Last day it may fire, YYYY-MM-DD in `timezone` (the whole day counts). */
  active_until?: string;
  /** A duration: 90s, 30m, 6h, 2d. */
  max_delay?: string;
}

export type LifecycleState = 'paused' | 'scheduled' | 'active' | 'ended';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `6h` → 21 600 000. The config schema has already checked the form. */
export function durationMs(text: string): number {
  const match = /^(\d+)\s*([smhd])$/.exec(text.trim());
  if (!match) throw new Error(`bad duration "${text}" (expected 90s, 30m, 6h or 2d)`);
  return Number(match[1]) * (UNIT_MS[match[2]!] ?? 0);
}

const OFFSET_PARTS: Intl.DateTimeFormatOptions = {
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
};

/** Offset of `timezone` from UTC at `at`, in ms (Berlin in summer: +7 200 000). */
function zoneOffset(at: number, timezone: string): number {
  // Without ICU for UTC, as config/cron.ts schedules it.
  if (timezone === 'UTC') return 0;
  const parts = zoneFormat(timezone, OFFSET_PARTS).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(at / 1000) * 1000;
}

/** The instant a day starts in `timezone` (00:00 local; twice corrected for a change that day). */
export function startOfDay(date: string, timezone: string): number {
  const wall = Date.parse(`${date}T00:00:00Z`);
  const first = wall - zoneOffset(wall, timezone);
  return wall - zoneOffset(first, timezone);
}

/** The half-open window [from, until) in which it may fire; either end may be open. */
export function activeWindow(life: Lifecycle, timezone: string): { from?: number; until?: number } {
  const nextDay = (date: string) =>
    new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return {
    from: life.active_from ? startOfDay(life.active_from, timezone) : undefined,
    until: life.active_until ? startOfDay(nextDay(life.active_until), timezone) : undefined,
  };
}

/** Paused, not started yet, active, or past its last day, at `now`. */
export function lifecycleState(life: Lifecycle, timezone: string, now: number): LifecycleState {
  if (!life.enabled) return 'paused';
  const { from, until } = activeWindow(life, timezone);
  if (until !== undefined && now >= until) return 'ended';
  if (from !== undefined && now < from) return 'scheduled';
  return 'active';
}

/** The first slot after `after` inside the active window, or undefined when none is left (or paused). */
export function nextSlot(cron: string, timezone: string, life: Lifecycle, after: number): number | undefined {
  if (!life.enabled) return undefined;
  const { from, until } = activeWindow(life, timezone);
  const slot = nextFireTime(cron, timezone, from !== undefined ? Math.max(after, from - 1) : after);
  return until !== undefined && slot >= until ? undefined : slot;
}

/** Up to `count` slots after `after` inside the window (the listing of `check` and the status page). */
export function nextSlots(
  cron: string,
  timezone: string,
  life: Lifecycle,
  after: number,
  count: number,
): number[] {
  const out: number[] = [];
  let cursor = after;
  while (out.length < count) {
    const slot = nextSlot(cron, timezone, life, cursor);
    if (slot === undefined) break;
    out.push(slot);
    cursor = slot;
  }
  return out;
}

/**
 * The newest slot at or before `at` and after `after` (inside the window), or undefined when none:
 * the slot a start-up catch-up stands for. It looks back in growing steps, so a long outage of a
 * per-second cron costs a few dozen cron reads, not one per missed slot.
 */
export function latestSlot(
  cron: string,
  timezone: string,
  life: Lifecycle,
  at: number,
  after: number,
): number | undefined {
  for (let span = 1_000; ; span *= 4) {
    const from = Math.max(after, at - span);
    let slot = nextSlot(cron, timezone, life, from);
    if (slot !== undefined && slot <= at) {
      for (let n = nextSlot(cron, timezone, life, slot); n !== undefined && n <= at; ) {
        slot = n;
        n = nextSlot(cron, timezone, life, n);
      }
      return slot;
    }
    if (from === after) return undefined;
  }
}
