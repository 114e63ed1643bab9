import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { TemplateError } from '../errors/index.js';
import { CATALOGS } from './locale.js';
import { readUnder } from './template-file.js';

/**
 * An author's own wording: `<templates.dir>/locale/<language>.json` (`en.json`, `de.json`, …), a
 * flat object of message key → ICU message over the built-in catalog of that language. An agency
 * rewords "Open errors" as its client says it, or adds a message of its own for a custom partial;
 * a key the built-in catalogs lack must then be in the file of every locale a report uses, which
 * `templates check` verifies like any other key. Read at each render (the folder's stamp changes
 * when a file does), so the studio shows an edit at once.
 */
export type CatalogOverrides = ReadonlyMap<string, Readonly<Record<string, string>>>;

const NONE: CatalogOverrides = new Map();

/** The folder's catalog files, checked: a broken one is named with the key at fault, never half used. */
export function readCatalogOverrides(templatesDir?: string): CatalogOverrides {
  const folder = templatesDir ? join(templatesDir, 'locale') : undefined;
  if (!folder || !existsSync(folder)) return NONE;
  const overrides = new Map<string, Record<string, string>>();
  for (const name of readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const file = join(folder, name);
    const language = name.slice(0, -'.json'.length);
    if (!Object.hasOwn(CATALOGS, language)) {
      throw new TemplateError(
        `${file}: no catalog for "${language}"; name it after a language: ${Object.keys(CATALOGS).join(', ')}`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(readUnder(templatesDir, file));
    } catch (error) {
      if (error instanceof TemplateError) throw error;
      throw new TemplateError(`${file}: not JSON (${(error as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new TemplateError(`${file}: must be an object of message key to message`);
    }
    const messages: Record<string, string> = {};
    for (const [key, message] of Object.entries(parsed)) {
      if (typeof message !== 'string') throw new TemplateError(`${file}: message "${key}" is not a string`);
      try {
        new IntlMessageFormat(message, language);
      } catch (error) {
        throw new TemplateError(`${file}: message "${key}" does not parse (${(error as Error).message})`);
      }
      messages[key] = message;
    }
    overrides.set(language, messages);
  }
  return overrides;
}

/** Names, sizes and times of the folder's catalog files: part of the templates' cache stamp. */
export function catalogStamp(templatesDir?: string): string {
  const folder = templatesDir ? join(templatesDir, 'locale') : undefined;
  if (!folder || !existsSync(folder)) return 'locale:none';
  return readdirSync(folder)
    .sort()
    .map((name) => {
      try {
        const stat = statSync(join(folder, name));
        return `locale/${name}:${stat.size}:${stat.mtimeMs}`;
      } catch {
        return `locale/${name}:gone`; // removed while listing: the next call sees the change
      }
    })
    .join('\n');
}
