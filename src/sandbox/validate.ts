import type { EndpointDef } from '../api/endpoints.js';
import { SandboxBadRequest } from '../errors/index.js';
import type { RunRecord, SetRecord } from './dataset/records.js';

/**
 * Server-side checks of what the spec forbids. They are written against the catalog's parameter
 * rules but independently of the client's `prepareRequest`, so a client bug is answered with -3 here
 * the way the real service would, instead of being excused by shared code.
 */

const INTEGER = /^\d+$/;

/** A path id must be a plain decimal integer (`/sets/1e2/runs` and `/sets/-1/runs` are refused). */
export function parseId(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (raw === undefined || !INTEGER.test(raw) || !Number.isSafeInteger(value)) {
    throw new SandboxBadRequest(`path parameter ${name} must be an integer, got "${raw ?? ''}"`);
  }
  return value;
}

export function validateQuery(endpoint: EndpointDef, query: URLSearchParams): void {
  const seen = new Set<string>();
  for (const [name, value] of query) {
    const rule = endpoint.params[name];
    if (!rule) {
      throw new SandboxBadRequest(
        Object.keys(endpoint.params).length === 0
          ? `${endpoint.path} takes no query parameters (got ${name})`
          : `unknown query parameter ${name}`,
      );
    }
    if (seen.has(name)) throw new SandboxBadRequest(`query parameter ${name} given more than once`);
    seen.add(name);
    if (rule.type === 'integer') {
      const n = Number(value);
      if (!INTEGER.test(value) || !Number.isSafeInteger(n) || (rule.min !== undefined && n < rule.min)) {
        throw new SandboxBadRequest(
          `query parameter ${name} must be an integer >= ${rule.min ?? 0}, got "${value}"`,
        );
      }
    } else if (!rule.values.includes(value)) {
      throw new SandboxBadRequest(
        `query parameter ${name} must be one of ${rule.values.join(', ')}, got "${value}"`,
      );
    }
  }
}

export interface RunWindow {
  start: number;
  end: number;
}

/**
 * The run window of a metric request, as indices into the set's runs. `end_run_id` defaults to the
 * latest published run and `start_run_id` to the set's first run. A run id of another set, a start
 * after the end and a set without any published run are refused (the spec leaves these undefined).
 */
export function resolveWindow(set: SetRecord, query: URLSearchParams): RunWindow {
  if (set.runs.length === 0) {
    throw new SandboxBadRequest(`query set ${set.def.id} has no published run`);
  }
  const find = (name: string, fallback: RunRecord): RunRecord => {
    const raw = query.get(name);
    if (raw === null) return fallback;
    const run = set.runs.find((r) => r.id === Number(raw));
    if (!run) throw new SandboxBadRequest(`${name} ${raw} is not a published run of query set ${set.def.id}`);
    return run;
  };
  const end = find('end_run_id', set.runs[set.runs.length - 1]!);
  const start = find('start_run_id', set.runs[0]!);
  if (start.index > end.index) {
    throw new SandboxBadRequest(`start_run_id ${start.id} is after end_run_id ${end.id}`);
  }
  return { start: start.index, end: end.index };
}
