/**
 * The text analysts need beside the numbers, out of valid payloads: the error register's claims, the
 * summary, the cited sources' names and types, and the engines and intents the rows refer to. Pure,
 * like metric-rows.ts; the store keeps what these return in the small `metric_*` companion tables.
 */

export interface ErrorClaimRow {
  error_id: string;
  title: string;
  correct: string;
  note: string | null;
  /** Null for an error without any wrong claim listed (it is still open). */
  engine_id: number | null;
  engine: string | null;
  claim: string | null;
}

export interface SourceRow {
  source: string;
  control: string;
  source_type: string;
}

export interface DimensionRow {
  dimension: 'engine' | 'intent';
  dimension_id: string;
  dimension_label: string;
  /** The intent's funnel stage; null for engines. */
  stage: string | null;
}

type Json = unknown;
const isRecord = (value: Json): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: Json): Record<string, Json>[] => (Array.isArray(value) ? value.filter(isRecord) : []);
const text = (value: Json): string => (typeof value === 'string' ? value : String(value ?? ''));

export function errorClaimRows(data: unknown): ErrorClaimRow[] {
  if (!isRecord(data)) return [];
  const engines = new Map(list(data.engines).map((engine) => [engine.id, text(engine.label)]));
  return list(data.gravityErrors).flatMap((error): ErrorClaimRow[] => {
    const base = {
      error_id: text(error.id),
      title: text(error.title),
      correct: text(error.correct),
      note: typeof error.note === 'string' ? error.note : null,
    };
    const wrong = list(error.wrong);
    if (wrong.length === 0) return [{ ...base, engine_id: null, engine: null, claim: null }];
    return wrong.map((claim) => ({
      ...base,
      engine_id: typeof claim.engine === 'number' ? claim.engine : null,
      engine: engines.get(claim.engine) ?? (claim.engine === undefined ? null : `#${text(claim.engine)}`),
      claim: text(claim.text),
    }));
  });
}

export function summaryText(data: unknown): string | null {
  return isRecord(data) && typeof data.content === 'string' ? data.content : null;
}

export function sourceRows(data: unknown): SourceRow[] {
  if (!isRecord(data)) return [];
  return list(data.sourcesDetail).map((source) => ({
    source: text(source.name),
    control: text(source.control),
    source_type: text(source.sourceType),
  }));
}

/** Engines and intents named by any payload of the snapshot, first label seen wins. */
export function dimensionRows(payloads: Iterable<unknown>): DimensionRow[] {
  const seen = new Map<string, DimensionRow>();
  for (const data of payloads) {
    if (!isRecord(data)) continue;
    for (const [key, dimension] of [
      ['engines', 'engine'],
      ['intents', 'intent'],
    ] as const) {
      for (const item of list(data[key])) {
        if (item.id === undefined) continue;
        const id = text(item.id);
        const row = seen.get(`${dimension}:${id}`);
        if (row) {
          if (row.stage === null && typeof item.stage === 'string') row.stage = item.stage;
          continue;
        }
        seen.set(`${dimension}:${id}`, {
          dimension,
          dimension_id: id,
          dimension_label: text(item.label),
          stage: typeof item.stage === 'string' ? item.stage : null,
        });
      }
    }
  }
  return [...seen.values()];
}
