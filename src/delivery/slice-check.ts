import type { RecipientRow } from '../config/recipient-fields.js';
import type { ConfigIssue } from '../errors/index.js';
import { listQuerySets } from '../store/query-sets.js';
import type { Store } from '../store/sql.js';

/**
 * A recipient table's slices against the sets the store knows. The config alone cannot tell that
 * set 1101 is another account's (ids are the API's), so `reportd check` and every enqueue ask the
 * store: a row naming another account's set, or a set its account does not have, is one line naming
 * the row, and the whole table is refused before anything is queued (never a partial send). An
 * account with no stored set yet (before its first sync) is not judged.
 */
export async function sliceIssues(
  store: Store,
  rows: readonly Pick<RecipientRow, 'at' | 'account' | 'query_sets'>[],
  accounts: readonly { name: string }[],
): Promise<ConfigIssue[]> {
  const sets = new Map<string, Set<number>>();
  for (const { name } of accounts)
    sets.set(name, new Set((await listQuerySets(store, name)).map((set) => set.id)));
  const issues: ConfigIssue[] = [];
  for (const row of rows) {
    const own = sets.get(row.account);
    if (row.query_sets === 'all' || !own || own.size === 0) continue;
    for (const id of row.query_sets) {
      if (own.has(id)) continue;
      const owner = [...sets].find(([, ids]) => ids.has(id))?.[0];
      issues.push({
        path: `${row.at} (query_sets)`,
        message: owner
          ? `"${id}": query set of account ${owner}, not of ${row.account} (a reader sees one account's sets)`
          : `"${id}": account ${row.account} has no query set ${id} (it has ${[...own].sort((a, b) => a - b).join(', ')})`,
      });
    }
  }
  return issues;
}
