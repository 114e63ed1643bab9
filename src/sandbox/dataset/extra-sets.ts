import { QUERY_SETS, type QuerySetDef } from './catalog.js';

/**
 * More query sets for tests that judge many sets at once (a stand-in API with ten sets, say): set
 * 301, 302, … of the Northwind brand, each shaped like the main set 101 (240 queries, five engines, six
 * intents) with rates of its own (they are hashed from the set id). Their two runs are published after
 * every run of the demo's sets, so the demo's run ids stay what tests and docs know.
 */
export const FIRST_EXTRA_SET_ID = 301;
/** Set ids of a company stay below the foreign set 999 and the next company's range. */
export const MAX_EXTRA_SETS = 100;

export function extraSets(count: number): QuerySetDef[] {
  if (!Number.isSafeInteger(count) || count < 0 || count > MAX_EXTRA_SETS) {
    throw new RangeError(
      `sandbox: extraSets must be a whole number from 0 to ${MAX_EXTRA_SETS} (got ${count})`,
    );
  }
  while (built.length < count) built.push(extraSet(built.length));
  return built.slice(0, count);
}

/** Built once per process, so every sandbox shares the sets' shapes (answers/shape.ts). */
const built: QuerySetDef[] = [];

function extraSet(k: number): QuerySetDef {
  const main = QUERY_SETS[0]!;
  return {
    ...main,
    id: FIRST_EXTRA_SET_ID + k,
    name: `Northwind — Panel ${k + 1}`,
    // After every demo set, so the brand's set list starts with the demo's.
    createdAt: Date.UTC(2026, 8, 14, 9, 0, 0) + k * 60_000,
    firstWeek: 38,
    stepWeeks: 1,
    runs: 2,
  };
}
