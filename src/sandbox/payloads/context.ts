import { type EngineDef, engineById, engineImage, type IntentDef } from '../dataset/catalog.js';
import type { RunRecord, SandboxDataset, SetRecord } from '../dataset.js';
import { round } from '../rng.js';

/**
 * What a metric handler needs: the set, and the run window the request selected. `end` is the run the
 * values are "as of"; history series cover `start..end` (indices into `set.runs`, both included).
 */
export interface MetricContext {
  ds: SandboxDataset;
  set: SetRecord;
  start: number;
  end: number;
  query: URLSearchParams;
}

export type MetricHandler = (ctx: MetricContext) => unknown;

export const windowRuns = (ctx: MetricContext): RunRecord[] => ctx.set.runs.slice(ctx.start, ctx.end + 1);
export const windowIndices = (ctx: MetricContext): number[] => windowRuns(ctx).map((r) => r.index);
export const historyLabels = (ctx: MetricContext): string[] => windowRuns(ctx).map((r) => r.display_name);
export const measurements = (ctx: MetricContext) =>
  windowRuns(ctx).map((r) => ({ id: r.id, label: r.display_name }));

/** Change against the previous published run (0 for the first run), whatever the window. */
export function delta(ctx: MetricContext, value: (i: number) => number, decimals: number): number {
  return ctx.end === 0 ? 0 : round(value(ctx.end) - value(ctx.end - 1), decimals);
}

export function metricCard(ctx: MetricContext, value: (i: number) => number, decimals = 1) {
  return {
    current: value(ctx.end),
    delta: delta(ctx, value, decimals),
    history: windowIndices(ctx).map(value),
  };
}

export function seriesCard(ctx: MetricContext, value: (i: number) => number, decimals = 1) {
  return { ...metricCard(ctx, value, decimals), historyLabels: historyLabels(ctx) };
}

export const setEngines = (ctx: MetricContext): EngineDef[] => ctx.set.def.engineIds.map(engineById);

export const engineRef = (e: EngineDef) => ({ id: e.id, label: e.name, color: e.color });
export const engineWithImage = (e: EngineDef) => ({
  id: e.id,
  label: e.name,
  image: engineImage(e),
  color: e.color,
});

export const intentFull = (i: IntentDef) => ({ id: i.id, label: i.label, stage: i.stage, icv: i.icv });

/** Maps keyed by engine or intent id use the id rendered as a string key. */
export function byId<T extends { id: number }, V>(
  items: readonly T[],
  value: (item: T) => V,
): Record<string, V> {
  const out: Record<string, V> = {};
  for (const item of items) out[String(item.id)] = value(item);
  return out;
}
