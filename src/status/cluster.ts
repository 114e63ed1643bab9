import { deliveriesInHand } from '../outbox/reads.js';
import { printable } from '../printable.js';
import { scrubOrNull } from '../secrets.js';
import { SKEW_REPORT_MS, skewText } from '../store/db-clock.js';
import {
  GONE_AFTER_BEATS,
  HEARTBEAT_MS,
  heldAccountLeases,
  type InstanceRow,
  instanceLive,
  listInstances,
} from '../store/instances.js';
import { listJobSlots } from '../store/job-slots.js';
import { type DefinitionConflict, definitionConflicts } from '../store/report-fingerprints.js';
import type { Store } from '../store/sql.js';

/**
 * The daemons sharing the store, as `reportd status`, `history`, `/readyz?verbose` and the status page
 * show them: each instance (live, gone or stopped, and its last heartbeat), the slots it claimed
 * lately, and the leases it holds now. Leases held by a process that is no instance (a `reportd sync`
 * or `reportd deliver` beside the daemons) are listed apart. Kept to one screen: the newest
 * instances of the last day, a few slots each.
 */

const MAX_INSTANCES = 8;
const SLOTS_EACH = 3;
const MAX_OTHERS = 5;
const DAY_MS = 86_400_000;

const iso = (at: number) => new Date(at).toISOString();

export interface InstanceView {
  id: string;
  host: string;
  pid: number;
  version: string;
  roles: string[];
  state: 'live' | 'gone' | 'stopped';
  startedAt: string;
  heartbeatAt: string;
  /** Seconds since the last heartbeat. */
  heartbeatAgeSeconds: number;
  /**
   * Its host's clock minus the database's, ms, as of its last heartbeat (store/db-clock.ts); null on
   * SQLite or when not recorded. Past `SKEW_REPORT_MS` the text forms say so.
   */
  clockSkewMs: number | null;
  /** `clock 120 s ahead of the database` when the skew is worth saying, else null. */
  clockNote: string | null;
  slots: { job: string; slot: string; reason: string; outcome: string; error: string | null }[];
  holds: { accounts: string[]; deliveries: number[]; notices: number[] };
}

export interface ClusterView {
  instances: InstanceView[];
  /** Leases held by processes that registered no instance: `{ kind, what, holder }`. */
  others: { kind: 'account' | 'delivery' | 'notice'; what: string; holder: string }[];
  /** Reports the live instances define differently (daemon/definition-watch.ts): their rows wait. */
  conflicts: DefinitionConflict[];
}

export async function collectCluster(store: Store, now: number): Promise<ClusterView> {
  const rows = (await listInstances(store, now - DAY_MS)).slice(0, MAX_INSTANCES);
  const slots = await listJobSlots(store, 100);
  const leases = { accounts: await heldAccountLeases(store, now), ...(await deliveriesInHand(store, now)) };
  const views = rows.map((row) => instanceView(row, now));
  const byId = new Map(views.map((v) => [v.id, v]));
  // Account leases are per sync pass (holder id), so they are matched by host and pid; a pid reused
  // after a restart belongs to the live instance, hence live ones are looked at first.
  const byProcess = (host: string, pid: number) =>
    views.find((v) => v.host === host && v.pid === pid && v.state === 'live') ??
    views.find((v) => v.host === host && v.pid === pid);
  const others: ClusterView['others'] = [];
  for (const slot of slots) {
    const view = byId.get(slot.instance);
    if (!view || view.slots.length >= SLOTS_EACH) continue;
    view.slots.push({
      job: slot.job,
      slot: iso(slot.slot_at),
      reason: slot.reason,
      outcome: slot.outcome ?? (slot.lease_until >= now ? 'running' : 'abandoned'),
      error: scrubOrNull(slot.error),
    });
  }
  for (const lease of leases.accounts) {
    const view = byProcess(lease.host, lease.pid);
    if (view) view.holds.accounts.push(lease.account);
    else others.push({ kind: 'account', what: lease.account, holder: `pid ${lease.pid} on ${lease.host}` });
  }
  for (const d of leases.deliveries) {
    const view = byId.get(d.claimed_by);
    if (view) view.holds.deliveries.push(d.id);
    else others.push({ kind: 'delivery', what: `${d.id} (${d.report})`, holder: d.claimed_by });
  }
  for (const n of leases.notices) {
    const view = byId.get(n.claimed_by);
    if (view) view.holds.notices.push(n.id);
    else others.push({ kind: 'notice', what: `${n.id} (${n.destination})`, holder: n.claimed_by });
  }
  const conflicts = await definitionConflicts(store, now - GONE_AFTER_BEATS * HEARTBEAT_MS);
  return { instances: views, others, conflicts };
}

function instanceView(row: InstanceRow, now: number): InstanceView {
  return {
    id: row.id,
    host: row.host,
    pid: row.pid,
    version: row.version,
    roles: row.roles.split(',').filter(Boolean),
    state: row.stopped_at !== null ? 'stopped' : instanceLive(row, now) ? 'live' : 'gone',
    startedAt: iso(row.started_at),
    heartbeatAt: iso(row.heartbeat_at),
    heartbeatAgeSeconds: Math.max(0, Math.round((now - row.heartbeat_at) / 1000)),
    clockSkewMs: row.clock_skew_ms === null ? null : Number(row.clock_skew_ms),
    clockNote: clockNote(row.clock_skew_ms === null ? null : Number(row.clock_skew_ms)),
    slots: [],
    holds: { accounts: [], deliveries: [], notices: [] },
  };
}

function clockNote(skewMs: number | null): string | null {
  if (skewMs === null || Math.abs(skewMs) <= SKEW_REPORT_MS) return null;
  return `clock ${skewText(skewMs)} the database`;
}

/** A short form of an age in seconds: 42s, 7m, 3h, 2d. */
function age(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}

/**
 * The text form (status, history, /readyz?verbose): a line per instance, then what it ran and holds.
 * Job and report names come from the config and instance ids from the store: all go through
 * `printable`. `self` marks the instance answering.
 */
export function clusterLines(view: ClusterView, self?: string): string[] {
  const live = view.instances.filter((i) => i.state === 'live').length;
  const out = [`Instances (${live} live of ${view.instances.length} heard from in the last day)`];
  if (view.instances.length === 0) out.push('  none (no daemon has run on this store lately)');
  for (const i of view.instances) {
    out.push(
      `  ${i.state.padEnd(7)} ${printable(i.id)}${i.id === self ? ' (this one)' : ''}  v${printable(i.version)}  ` +
        `${printable(i.roles.join(',')) || '-'}  since ${i.startedAt}  heartbeat ${age(i.heartbeatAgeSeconds)} ago${i.clockNote ? `  ${i.clockNote}` : ''}`,
    );
    if (i.slots.length > 0) {
      const slots = i.slots.map(
        (s) => `${printable(s.job)} ${s.slot}${s.reason === 'schedule' ? '' : ` (${s.reason})`} ${s.outcome}`,
      );
      out.push(`      slots: ${slots.join('; ')}`);
    }
    const { accounts, deliveries, notices } = i.holds;
    const holds = [
      accounts.length ? `accounts ${few(accounts.map((a) => printable(a)))}` : '',
      deliveries.length ? `deliveries ${few(deliveries.map(String))}` : '',
      notices.length ? `notices ${few(notices.map(String))}` : '',
    ].filter(Boolean);
    if (holds.length > 0) out.push(`      holds: ${holds.join('; ')}`);
  }
  for (const line of conflictLines(view)) out.push(`  error: ${line}`);
  for (const o of view.others.slice(0, MAX_OTHERS)) {
    out.push(`  not an instance: ${printable(o.holder)} holds ${o.kind} ${printable(o.what)}`);
  }
  if (view.others.length > MAX_OTHERS) out.push(`  … and ${view.others.length - MAX_OTHERS} more leases`);
  return out;
}

/** One sentence per report the live instances define differently; names only, never a definition. */
export function conflictLines(view: ClusterView): string[] {
  return view.conflicts.map(
    (c) =>
      `report ${printable(c.report)} has ${c.definitions} different definitions on ` +
      `${few(c.instances.map((i) => printable(i)))}; its deliveries wait until the configs agree`,
  );
}

/** Up to ten items, then how many more: a line stays a line. */
function few(items: string[]): string {
  return items.length <= 10
    ? items.join(', ')
    : `${items.slice(0, 10).join(', ')} and ${items.length - 10} more`;
}
