import type { z } from 'zod';
import type { ConfigIssue } from '../errors/index.js';
import { closest } from './suggest.js';

/** `['reports', 0, 'schedule', 'cron']` → `reports[0].schedule.cron`, the way users read YAML. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(top level)' : out;
}

/**
 * Zod issues in the config's words. Messages never quote the offending value: it may be a secret
 * that arrived through `${VAR}` (a URL with a password in it, say).
 */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[], schema: z.ZodType): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(schema, issue.path);
      for (const key of issue.keys) {
        const guess = closest(key, known);
        out.push({
          path: formatPath([...issue.path, key]),
          message:
            'unknown key' +
            (guess ? ` (did you mean ${guess}?)` : known.length ? ` (known: ${known.join(', ')})` : ''),
        });
      }
      continue;
    }
    out.push({ path: formatPath(issue.path), message: plain(issue) });
  }
  return out;
}

function plain(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const received = /received (\w+)$/.exec(issue.message)?.[1];
    if (received === 'undefined') return 'required';
    return `expected ${issue.expected}` + (received ? `, got ${received}` : '');
  }
  // "Too small: expected number to be >0" → "expected number to be >0": the path already says where.
  return issue.message.replace(/^(Invalid input|Invalid option|Too small|Too big): /, '');
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
}

/** The keys the schema allows at `path`, to suggest the one a misspelt key meant. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: z.ZodType | undefined = unwrap(schema);
  for (const part of path) {
    if (node === undefined) return [];
    const def = node._zod.def as unknown as Def;
    node = unwrap(typeof part === 'number' ? def.element : def.shape?.[String(part)]);
  }
  const def = node?._zod.def as unknown as Def | undefined;
  return def?.shape ? Object.keys(def.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let node = schema;
  for (;;) {
    const def = node?._zod.def as unknown as Def | undefined;
    if (def?.innerType) node = def.innerType;
    else if (def?.type === 'pipe' && def.in) node = def.in;
    else return node;
  }
}
