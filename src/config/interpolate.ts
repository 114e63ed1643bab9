import type { ConfigIssue } from '../errors/index.js';
import { formatPath } from './issues.js';

/**
 * `${VAR}` and `${VAR:-default}` in string values, read from the environment, so secrets and
 * per-deployment values stay out of the file (Docker, Kubernetes). `$${` writes a literal `${`.
 * Only string scalars are interpolated: substituting into the YAML text would let a value with a
 * `:` or `#` change the document's structure. Keys are never interpolated.
 */
const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{[^}]*\}?/g;

/** The interpolated document, and the paths of values that were one whole `${…}` reference. */
export interface Interpolated {
  value: unknown;
  wholeReferences: (string | number)[][];
}

export function interpolate(value: unknown, env: NodeJS.ProcessEnv, issues: ConfigIssue[]): Interpolated {
  const wholeReferences: (string | number)[][] = [];
  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') {
      if (WHOLE.test(node)) wholeReferences.push(path);
      return substitute(node, path, env, issues);
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (typeof node === 'object' && node !== null) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(node)) out[key] = walk(item, [...path, key]);
      return out;
    }
    return node;
  };
  return { value: walk(value, []), wholeReferences };
}

const WHOLE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/;

/**
 * `port: ${HTTP_PORT}` reads as a string; where the schema wants a number or boolean and the value
 * was one whole reference, the text is read as that type (the shell cannot pass anything but text).
 * Returns the paths changed, so the caller knows whether a second validation is worth it.
 */
export function typeWholeReferences(
  document: unknown,
  wholeReferences: (string | number)[][],
  wanted: (path: (string | number)[]) => 'number' | 'boolean' | undefined,
): number {
  let changed = 0;
  for (const path of wholeReferences) {
    const parent = path
      .slice(0, -1)
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], document);
    const key = path[path.length - 1];
    if (key === undefined || typeof parent !== 'object' || parent === null) continue;
    const record = parent as Record<string | number, unknown>;
    const text = record[key];
    if (typeof text !== 'string') continue;
    const type = wanted(path);
    if (type === 'number' && /^-?\d+(\.\d+)?$/.test(text.trim())) record[key] = Number(text);
    else if (type === 'boolean' && /^(true|false)$/.test(text.trim())) record[key] = text.trim() === 'true';
    else continue;
    changed++;
  }
  return changed;
}

function substitute(
  text: string,
  path: (string | number)[],
  env: NodeJS.ProcessEnv,
  issues: ConfigIssue[],
): string {
  if (!text.includes('${')) return text;
  return text.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$${') return '${';
    if (name === undefined) {
      issues.push({
        path: formatPath(path),
        message: `malformed reference "${match}" (expected \${NAME} or \${NAME:-default})`,
      });
      return match;
    }
    const set = env[name];
    // Like the shell: `:-` falls back when the variable is unset or empty.
    if (fallback !== undefined) return set === undefined || set === '' ? fallback : set;
    if (set === undefined) {
      issues.push({
        path: formatPath(path),
        message: `environment variable ${name} is not set (write \${${name}:-default} for a fallback)`,
      });
      return match;
    }
    return set;
  });
}
