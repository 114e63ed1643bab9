import type { ConfigIssue } from '../errors/index.js';
import { formatPath } from './issues.js';

/**
 * `${VAR}` and `${VAR:-default}` in string values, read from the environment, so secrets and
 * per-deployment values stay out of the file (Docker, Kubernetes). `$${` writes a literal `${`.
 * Only string scalars are interpolated: substituting into the YAML text would let a value with a
 * `:` or `#` change the document's structure. Keys are never interpolated.
 */
const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{[^}]*\}?/g;

export function interpolate(value: unknown, env: NodeJS.ProcessEnv, issues: ConfigIssue[]): unknown {
  return walk(value, [], env, issues);
}

function walk(
  value: unknown,
  path: (string | number)[],
  env: NodeJS.ProcessEnv,
  issues: ConfigIssue[],
): unknown {
  if (typeof value === 'string') return substitute(value, path, env, issues);
  if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index], env, issues));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = walk(item, [...path, key], env, issues);
    return out;
  }
  return value;
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
