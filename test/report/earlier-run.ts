import { levelOf } from '../../src/insight/metric-names.js';
import type { ReportSnapshot } from '../../src/report/model/snapshot.js';

/**
 * The run stored before `snapshot`, as its own payloads' change fields describe it: every level with
 * a change beside it (`current` and `delta`, `weighted` and `deltaW`, a by-engine `weighted` and its
 * `delta`…) is `level − change`, every count stays. Reports judge changes from two stored runs, so a
 * test that wants a fixture's deltas judged stores this run before it.
 */
export function runBefore(snapshot: ReportSnapshot, id = snapshot.id - 1): ReportSnapshot {
  const payloads: ReportSnapshot['payloads'] = {};
  for (const [key, stored] of Object.entries(snapshot.payloads))
    payloads[key] = { ...stored, data: undo(key, structuredClone(stored.data)) };
  // The scatter repeats weighted presence (one figure: insight/sample-sizes.ts): it moves with it.
  const weighted = payloads['presence.weighted']?.data as { current?: number } | undefined;
  const scatter = payloads['life.scatter']?.data as { weightedPresenceCurrent?: number } | undefined;
  if (scatter && typeof weighted?.current === 'number') scatter.weightedPresenceCurrent = weighted.current;
  const created = new Date(Date.parse(snapshot.run.created_at) - 14 * 86_400_000).toISOString();
  return {
    ...snapshot,
    id,
    run: {
      id: snapshot.run.id - 1,
      display_name: `before ${snapshot.run.display_name}`,
      created_at: created,
    },
    payloads,
  };
}

function undo(endpoint: string, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => undo(endpoint, item));
  if (typeof node !== 'object' || node === null) return node;
  const record = node as Record<string, unknown>;
  // `prev: {…}` beside the levels: the run before's own values.
  const prev = record.prev;
  if (typeof prev === 'object' && prev !== null && !Array.isArray(prev))
    for (const [key, value] of Object.entries(prev))
      if (typeof value === 'number' && typeof record[key] === 'number') record[key] = value;
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === 'object') record[key] = undo(endpoint, value);
    const level = levelOf(endpoint, key);
    const target = level?.kind === 'change' ? record[level.field] : undefined;
    if (typeof value === 'number' && typeof target === 'number')
      record[level!.field] = Number((target - value).toFixed(6));
  }
  return record;
}
