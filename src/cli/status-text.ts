import { printable } from '../printable.js';
import { clusterLines } from '../status/cluster.js';
import type { StatusReport } from '../status/collect.js';

/**
 * The text form. Set names and run labels come from the API and errors from the store: every such
 * string goes through `printable`, so none can send the terminal an escape sequence (`--json` is
 * escaped by JSON itself).
 */
export function formatStatus(report: StatusReport): string {
  const lines = [`store ${printable(report.store)}`];
  const last = report.lastSync;
  lines.push(
    last
      ? `last sync ${last.finishedAt}: ${last.outcome}${last.error ? ` — ${printable(last.error)}` : ''}`
      : 'no sync has finished yet',
  );
  for (const account of report.accounts) {
    const { used, requests, windowSeconds } = account.budget;
    lines.push('');
    lines.push(
      `account ${printable(account.name)}: last sync ${account.lastSyncAt ?? 'never'}, ` +
        `budget ${used}/${requests} used in the last ${windowSeconds}s`,
    );
    if (account.lastError) lines.push(`  last error: ${printable(account.lastError)}`);
    if (account.sets.length === 0) {
      lines.push('  no query sets known yet (run reportd sync)');
      continue;
    }
    const header = [
      'set',
      'name',
      'state',
      'runs',
      'complete',
      'settled',
      'partial',
      'missing',
      'latest complete run',
      'last error',
    ];
    const rows = account.sets.map((set) => [
      String(set.id),
      printable(set.name),
      set.state,
      String(set.runsKnown),
      String(set.complete),
      String(set.settled),
      String(set.partial),
      String(set.missing),
      set.latestComplete ? `${set.latestComplete.runId} ${printable(set.latestComplete.label)}` : '-',
      printable(set.lastError ?? ''),
    ]);
    lines.push(...table([header, ...rows]).map((line) => `  ${line}`));
    for (const set of account.sets) {
      if (set.drifted.length === 0) continue;
      // Endpoint keys come from our own catalog, not from the API: safe to print as they are.
      lines.push(
        `  set ${set.id}: the API's answer drifted from its schema for ${set.drifted.join(', ')} (reported as "Data unavailable")`,
      );
    }
  }
  if (report.unclaimed && report.unclaimed.length > 0) {
    lines.push('');
    lines.push(
      'outbox rows this config cannot send (a daemon whose config has them sends them; none running has them if they stay):',
    );
    for (const group of report.unclaimed) {
      // Names come from the store (another config wrote them): printable, like the API's strings.
      lines.push(
        `  ${group.kind} ${printable(group.name)} → ${printable(group.destination)}: ${group.count} due since ${group.dueSince}`,
      );
    }
  }
  lines.push('', ...clusterLines(report.cluster));
  return `${lines.join('\n')}\n`;
}

/** Left-aligned columns; the last one is free-width (error messages). */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col]!)))
      .join('  ')
      .trimEnd(),
  );
}
