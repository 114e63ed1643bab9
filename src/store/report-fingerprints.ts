import type { Store } from './sql.js';

/**
 * The definitions each daemon serves (table report_fingerprints, migration 028), and the reports
 * whose live daemons disagree on them. "Live" is the instances table's: not stopped and heard from
 * since `liveSince` (the caller's `GONE_AFTER_BEATS` heartbeats ago).
 */

/** Replaces the fingerprints recorded for `instance` with `fingerprints` (report name → hash). */
export async function recordFingerprints(
  store: Store,
  instance: string,
  fingerprints: ReadonlyMap<string, string>,
): Promise<void> {
  await store.transaction(async () => {
    await store.run('DELETE FROM report_fingerprints WHERE instance = ?', [instance]);
    for (const [report, fingerprint] of fingerprints) {
      await store.run('INSERT INTO report_fingerprints (instance, report, fingerprint) VALUES (?, ?, ?)', [
        instance,
        report,
        fingerprint,
      ]);
    }
  });
}

export interface DefinitionConflict {
  report: string;
  /** The live instances serving it, by id, sorted. */
  instances: string[];
  /** How many different definitions they have (≥ 2). */
  definitions: number;
}

/** Reports that live instances serve with more than one definition, by name. */
export async function definitionConflicts(store: Store, liveSince: number): Promise<DefinitionConflict[]> {
  const rows = await store.all<{ report: string; instance: string; fingerprint: string }>(
    `SELECT f.report, f.instance, f.fingerprint FROM report_fingerprints f
     JOIN instances i ON i.id = f.instance
     WHERE i.stopped_at IS NULL AND i.heartbeat_at >= ?
     ORDER BY f.report, f.instance`,
    [liveSince],
  );
  const byReport = new Map<string, { instances: string[]; fingerprints: Set<string> }>();
  for (const row of rows) {
    const entry = byReport.get(row.report) ?? { instances: [], fingerprints: new Set<string>() };
    entry.instances.push(row.instance);
    entry.fingerprints.add(row.fingerprint);
    byReport.set(row.report, entry);
  }
  return [...byReport]
    .filter(([, entry]) => entry.fingerprints.size > 1)
    .map(([report, entry]) => ({ report, instances: entry.instances, definitions: entry.fingerprints.size }));
}

/** Drops the fingerprints of instances no longer in the table (pruned with them). */
export async function pruneFingerprints(store: Store): Promise<void> {
  await store.run('DELETE FROM report_fingerprints WHERE instance NOT IN (SELECT id FROM instances)');
}
