import type { SqlRunner } from './sql.js';

/**
 * Inserts many rows of one table with few statements: up to `ROWS_PER_STATEMENT` rows per multi-row
 * INSERT. Each statement costs a round trip on PostgreSQL (and a call into the driver on SQLite);
 * one per row made a snapshot's derived rows some 70 statements on top of its payloads.
 */

/** 50 rows of up to 16 columns: 800 parameters, far under SQLite's 32,766 and PostgreSQL's 65,535. */
const ROWS_PER_STATEMENT = 50;

/** The SQL text per (head, row count), so each shape is built, numbered and prepared once. */
const texts = new Map<string, string>();

/**
 * `head` is the statement up to VALUES (`INSERT INTO t (a, b) VALUES`), `tail` what follows the
 * tuples (`ON CONFLICT DO NOTHING`); every row has the head's number of columns. Returns rows given.
 */
export async function insertRows(
  store: SqlRunner,
  head: string,
  rows: readonly (readonly unknown[])[],
  tail = '',
): Promise<number> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    const columns = chunk[0]!.length;
    const key = `${head}\u0000${tail}\u0000${columns}\u0000${chunk.length}`;
    let text = texts.get(key);
    if (text === undefined) {
      const tuple = `(${Array(columns).fill('?').join(', ')})`;
      text = `${head} ${Array(chunk.length).fill(tuple).join(', ')} ${tail}`.trimEnd();
      texts.set(key, text);
    }
    await store.run(text, chunk.flat());
  }
  return rows.length;
}
