import { existsSync, readdirSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import Handlebars from 'handlebars';
import { type CatalogOverrides, readCatalogOverrides } from '../../locale/catalog-files.js';
import { registerLocaleHelpers } from '../../locale/helpers.js';
import { CATALOGS } from '../../locale/locale.js';
import { readUnder } from '../../locale/template-file.js';
import { PACKAGED_TEMPLATES_DIR } from '../templates.js';
import { emailViewSchema } from './email-view-schema.js';
import type { Shape } from './schema-path.js';
import { type TemplateProblem, TemplateWalk } from './template-walk.js';
import { digestViewSchema, marginViewSchema, reportViewSchema } from './view-schema.js';

export type { TemplateProblem };

/**
 * `reportd templates check`: every template a report renders with (the user's folder over the
 * built-ins, file by file, as loadReportTemplates and the email composer pick them), parsed and
 * walked against the view it gets. Every problem is returned, none thrown.
 */
export function checkTemplates(options: {
  templatesDir?: string;
  locales: readonly string[];
}): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const seen = new Set<string>();
  const report = (problem: TemplateProblem) => {
    const key = `${problem.file}:${problem.line}:${problem.column}:${problem.message}`;
    if (!seen.has(key)) problems.push(problem);
    seen.add(key);
  };
  const pick = (area: string, name: string): string => {
    const user = options.templatesDir ? join(options.templatesDir, area, name) : undefined;
    return user && existsSync(user) ? user : join(PACKAGED_TEMPLATES_DIR, area, name);
  };
  const parse = (file: string): hbs.AST.Program | undefined => {
    let source: string;
    try {
      source = readUnder(options.templatesDir, file);
    } catch (error) {
      // A link out of the folder: named, with where it leads (template-file.ts).
      report({ file, line: 1, column: 1, message: (error as Error).message.replace(`${file} `, '') });
      return undefined;
    }
    try {
      return Handlebars.parse(source);
    } catch (error) {
      report(parseProblem(file, source, error as Error));
      return undefined;
    }
  };

  // Partials: built-in first, the user's override by name (as templates.ts registers them).
  const partials = new Map<string, { file: string; ast: hbs.AST.Program }>();
  const folders = [join(PACKAGED_TEMPLATES_DIR, 'report', 'partials')];
  if (options.templatesDir) folders.push(join(options.templatesDir, 'report', 'partials'));
  for (const folder of folders) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)
      .filter((f) => f.endsWith('.hbs'))
      .sort()) {
      const file = join(folder, name);
      const ast = parse(file);
      if (ast) partials.set(basename(name, '.hbs'), { file, ast });
    }
  }

  let overrides: CatalogOverrides = new Map();
  try {
    overrides = readCatalogOverrides(options.templatesDir);
  } catch (error) {
    // "<file>: what is wrong": the file is named, the problem has no line of its own.
    const [file = '', ...rest] = (error as Error).message.split(': ');
    report({ file, line: 1, column: 1, message: rest.join(': ') });
  }
  const env = Handlebars.create();
  registerLocaleHelpers(env);
  const helpers = new Set(Object.keys(env.helpers).filter((name) => !(name in Handlebars.helpers)));
  const catalogs = new Map<string, ReadonlySet<string>>();
  for (const tag of options.locales) {
    const name = tag.slice(0, 2);
    const catalog = CATALOGS[name];
    if (catalog)
      catalogs.set(name, new Set([...Object.keys(catalog), ...Object.keys(overrides.get(name) ?? {})]));
  }
  const walk = new TemplateWalk({ helpers, partials, catalogs, report });

  const roots: [string, string, Shape][] = [
    ['report', 'report.hbs', reportViewSchema],
    ['report', 'digest.hbs', digestViewSchema],
    ['report', 'header.hbs', marginViewSchema],
    ['report', 'footer.hbs', marginViewSchema],
    ['email', 'report.hbs', emailViewSchema],
    ['email', 'report.txt.hbs', emailViewSchema],
  ];
  for (const [area, name, schema] of roots) {
    const file = pick(area, name);
    const ast = parse(file);
    if (ast) walk.template(file, ast, schema);
  }
  // A partial no template calls is still read for its helpers, partials and messages.
  walk.unusedPartials();
  walk.finish();
  return problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

/** Handlebars' parse error as a position: its own line and column, or read off the caret it draws. */
function parseProblem(
  file: string,
  source: string,
  error: Error & { lineNumber?: number; column?: number },
): TemplateProblem {
  const first = error.message.split('\n')[0] ?? error.message;
  if (error.lineNumber !== undefined) {
    return { file, line: error.lineNumber, column: (error.column ?? 0) + 1, message: first };
  }
  const line = Number(/on line (\d+)/.exec(error.message)?.[1] ?? 1);
  const [, excerpt = '', caret = ''] = error.message.split('\n');
  const at = caret.indexOf('^');
  const text = source.split('\n')[line - 1] ?? '';
  let column = 1;
  // The excerpt is the last characters read (lines joined) then what follows: find them on the line.
  for (let i = 0; i < at; i++) {
    const before = excerpt.slice(i, at);
    const found = text.indexOf(before);
    if (found >= 0) {
      column = found + before.length + 1;
      break;
    }
  }
  const expecting = /got '([^']+)'/.exec(error.message)?.[1];
  return {
    file,
    line,
    column,
    message: `${first.replace(/ on line \d+:?$/, '')}${expecting ? ` (unexpected ${expecting})` : ''}`,
  };
}

/** `file:line:column: message`, the file relative to `cwd` when it is inside it. */
export function formatProblem(problem: TemplateProblem, cwd = process.cwd()): string {
  const rel = relative(cwd, problem.file);
  const file = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : problem.file;
  return `${file}:${problem.line}:${problem.column}: ${problem.message}`;
}
