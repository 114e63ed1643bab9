import Database from 'better-sqlite3';
import pg from 'pg';
import { openSqliteDatabase } from '../src/store/sqlite-addon.js';

/**
 * Counts the SQL statements this process sends to its store, on both engines, for the benches'
 * "statements per request" (a figure load disturbs less than wall time). It wraps the drivers at
 * their lowest shared entry: every `pg` statement (a pool's query goes through a client's; BEGIN,
 * COMMIT and advisory locks included) and every better-sqlite3 statement run or `exec` (BEGIN,
 * COMMIT, savepoints). Bench-only: nothing in src/ loads it.
 */
let count = 0;
/** With BENCH_STATEMENTS=1: how often each statement text ran (its first 90 characters). */
const byText = process.env.BENCH_STATEMENTS === '1' ? new Map<string, number>() : undefined;

function counted(sql: unknown): void {
  count++;
  if (!byText) return;
  const text = typeof sql === 'string' ? sql : String((sql as { text?: unknown })?.text ?? sql);
  const key = text.replace(/\s+/g, ' ').trim().slice(0, 90);
  byText.set(key, (byText.get(key) ?? 0) + 1);
}

export function statementCount(): number {
  return count;
}

/** The most frequent statements, one per line with their count (empty without BENCH_STATEMENTS=1). */
export function statementTally(top = 25): string {
  if (!byText) return '';
  return [...byText]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([text, n]) => `${String(n).padStart(8)}  ${text}`)
    .join('\n');
}

let installed = false;

export function countStatements(): void {
  if (installed) return;
  installed = true;
  const pgQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    counted(args[0]);
    return pgQuery.apply(this, args);
  } as typeof pg.Client.prototype.query;

  const exec = Database.prototype.exec;
  Database.prototype.exec = function (this: Database.Database, source: string) {
    counted(source);
    return exec.call(this, source);
  };
  const probe = openSqliteDatabase(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<
    'run' | 'get' | 'all',
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of ['run', 'get', 'all'] as const) {
    const original = statement[method];
    statement[method] = function (this: { source?: string }, ...args: unknown[]) {
      counted(this.source);
      return original.apply(this, args);
    };
  }
}
