import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../errors/index.js';
import { scrub } from '../secrets.js';
import { budgetOptionIssues } from './budget-options.js';
import { interpolate, typeWholeReferences } from './interpolate.js';
import { formatPath, fromZodIssues } from './issues.js';
import { recipientTables } from './recipient-table.js';
import { deepFreeze, resolveConfig } from './resolve.js';
import { crossFieldIssues } from './rules.js';
import { type Config, configSchema } from './schema.js';
import { fileProblem, readSecretFiles, registerInlineSecrets } from './secret-files.js';

/**
 * Reads, checks and freezes the config file. Every problem (YAML syntax, unknown keys, bad values,
 * unset variables, unreadable secret files, cross-field rules) is collected and thrown at once as a
 * `ConfigError`, the way fastify validates its options: one `reportd check` shows the whole list.
 */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Config {
  const full = resolve(file);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (error) {
    throw new ConfigError(file, [
      {
        path: full,
        message: `cannot read: ${fileProblem(error)} (pass --config FILE or set REPORTD_CONFIG)`,
      },
    ]);
  }
  const { value, issues } = parseYaml(text);
  if (issues.length > 0) throw new ConfigError(file, issues);
  return build(value, dirname(full), env, file);
}

/**
 * Builds a Config from an in-memory document with the same checks as `loadConfig` (the demo writes
 * its config as an object). Relative paths and secret files are read from `baseDir`.
 */
export function configFromObject(
  document: unknown,
  baseDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Config {
  return build(document, resolve(baseDir), env, '(in-memory config)');
}

function build(document: unknown, baseDir: string, env: NodeJS.ProcessEnv, label: string): Config {
  if (document === null || document === undefined) {
    throw new ConfigError(label, [
      { path: '(top level)', message: 'the config is empty (at least accounts is needed)' },
    ]);
  }
  const issues: ConfigIssue[] = [];
  const { value: raw, wholeReferences } = interpolate(document, env, issues);
  // An unset variable also makes its value invalid; the variable is the problem worth naming.
  const unset = new Set(issues.map((issue) => issue.path));
  // Before anything can fail: a refused config must not print a secret either.
  registerInlineSecrets(raw);
  const secrets = readSecretFiles(raw, baseDir, issues);
  // Parsed once (twice at most) per process: zod's compiled fast path for each object schema costs
  // more to generate than it saves on one document, and `reportd check` would pay it on every run.
  let result = configSchema.safeParse(raw, { jitless: true });
  if (!result.success && retype(raw, wholeReferences, result.error.issues) > 0)
    result = configSchema.safeParse(raw, { jitless: true });
  const later = [
    ...(result.success
      ? budgetOptionIssues(result.data.accounts)
      : fromZodIssues(result.error.issues, configSchema)),
    ...crossFieldIssues(raw),
  ];
  issues.push(...later.filter((issue) => !unset.has(issue.path)));
  // Read only from a valid document: a row names accounts, channels and themes checked above.
  const tables = result.success ? recipientTables(result.data, baseDir, issues) : new Map();
  if (issues.length > 0 || !result.success) {
    throw new ConfigError(
      label,
      issues.map((issue) => ({ path: issue.path, message: scrub(issue.message) })),
    );
  }
  return deepFreeze(resolveConfig(result.data, baseDir, secrets, tables));
}

/** Reads `${VAR}` values as numbers or booleans where the schema said it expected one. */
function retype(
  raw: unknown,
  wholeReferences: (string | number)[][],
  zodIssues: readonly z.core.$ZodIssue[],
): number {
  const expected = new Map<string, 'number' | 'boolean'>();
  for (const issue of zodIssues) {
    if (issue.code !== 'invalid_type') continue;
    const type = issue.expected as string;
    if (type === 'number' || type === 'boolean') expected.set(formatPath(issue.path), type);
  }
  return expected.size === 0
    ? 0
    : typeWholeReferences(raw, wholeReferences, (path) => expected.get(formatPath(path)));
}

/** YAML syntax errors carry line and column; the messages never quote the source text. */
function parseYaml(text: string): { value: unknown; issues: ConfigIssue[] } {
  const lineCounter = new LineCounter();
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const issues: ConfigIssue[] = [];
  const lines = new Set<number>();
  for (const error of document.errors) {
    // One bad token often yields several errors on its line; the first one says it.
    const line = lineCounter.linePos(error.pos[0]).line;
    if (lines.has(line)) continue;
    lines.add(line);
    const hint = syntaxHint(error.message, text.split('\n')[line - 1] ?? '');
    issues.push({ path: at(error.pos[0]), message: (error.message.split('\n')[0] ?? error.code) + hint });
  }
  if (issues.length > 0) return { value: undefined, issues };
  visit(document, {
    Alias(_key, node) {
      if (node.resolve(document) === undefined) {
        issues.push({
          path: at(node.range?.[0] ?? 0),
          message: `alias *${node.source} has no anchor (${QUOTE_STAR})`,
        });
      }
    },
  });
  if (issues.length > 0) return { value: undefined, issues };
  try {
    return { value: document.toJS({ maxAliasCount: 100 }), issues };
  } catch (error) {
    return { value: undefined, issues: [{ path: '(top level)', message: (error as Error).message }] };
  }
}

/** The two syntax errors `${VAR}` and cron expressions provoke, explained. */
function syntaxHint(message: string, sourceLine: string): string {
  if (/alias/i.test(message)) return ` (${QUOTE_STAR})`;
  if (sourceLine.includes('$' + '{')) return ' (inside { } or [ ], quote values that use $' + '{VAR})';
  return '';
}

/** YAML reads a leading `*` as an alias: the usual victim is an unquoted cron expression. */
const QUOTE_STAR = "quote values that start with *, e.g. schedule: '*/10 * * * *'";
