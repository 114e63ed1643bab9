import type { QuerySetDef } from '../dataset/catalog.js';
import { signedUnit, unit } from '../rng.js';

/**
 * The fixed shape of a query set, the same in every run: which intent each query serves (intents get
 * unequal numbers of queries, as in real sets — the API never says how many) and each (query, engine)
 * cell's base log-odds of naming the brand. Engines, intents and single queries differ a lot (a brand
 * named by half of ChatGPT's answers may be named by a fifth of Claude's), so the aggregates have
 * breakdowns worth reading. Built once per set definition.
 */
export interface SetShape {
  queries: number;
  engines: number;
  intents: number;
  /** Intent index (into `def.intents`) of each query. */
  intentOf: Uint16Array;
  /** Base log-odds that a cell's answer names the brand; cell = query × engines + engine index. */
  logits: Float64Array;
}

const shapes = new WeakMap<QuerySetDef, SetShape>();

export const logit = (p: number) => Math.log(p / (1 - p));
export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function setShape(def: QuerySetDef): SetShape {
  const known = shapes.get(def);
  if (known) return known;
  const queries = Math.max(1, def.queriesCount);
  const engines = def.engineIds.length;
  const intents = Math.max(1, def.intents.length);
  const intentOf = queryIntents(def, queries, intents);
  const overall = logit(0.34 + 0.08 * unit(def.id, 'presence'));
  const engineEffect = def.engineIds.map((e) => 1.0 * signedUnit(def.id, 'presence', 'engine', e));
  const intentEffect = Array.from(
    { length: intents },
    (_, k) => 0.5 * signedUnit(def.id, 'presence', 'intent', def.intents[k]?.id ?? k),
  );
  const logits = new Float64Array(queries * engines);
  for (let q = 0; q < queries; q++) {
    const query = overall + (intentEffect[intentOf[q]!] ?? 0) + 1.2 * signedUnit(def.id, 'query', q);
    for (let e = 0; e < engines; e++) {
      logits[q * engines + e] = query + (engineEffect[e] ?? 0) + 0.3 * signedUnit(def.id, 'cell', q, e);
    }
  }
  const shape = { queries, engines, intents, intentOf, logits };
  shapes.set(def, shape);
  return shape;
}

/** Queries split over intents in uneven blocks (weights 0.5..1.5), every intent at least one query. */
function queryIntents(def: QuerySetDef, queries: number, intents: number): Uint16Array {
  const weights = Array.from({ length: intents }, (_, k) => 0.5 + unit(def.id, 'intent-size', k));
  const total = weights.reduce((a, b) => a + b, 0);
  const out = new Uint16Array(queries);
  let q = 0;
  let cumulative = 0;
  for (let k = 0; k < intents; k++) {
    cumulative += weights[k]!;
    const end = k === intents - 1 ? queries : Math.max(q + 1, Math.round((cumulative / total) * queries));
    for (; q < Math.min(end, queries - (intents - 1 - k)); q++) out[q] = k;
  }
  return out;
}
