import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import Handlebars from 'handlebars';
import { TemplateError } from '../errors/index.js';
import { catalogStamp, readCatalogOverrides } from '../locale/catalog-files.js';
import { registerLocaleHelpers } from '../locale/helpers.js';
import { readUnder } from '../locale/template-file.js';
import { compileTemplate, PACKAGED_TEMPLATES_DIR, packagedTemplate } from './packaged-templates.js';

export { PACKAGED_TEMPLATES_DIR, TemplateError };

export interface ReportTemplates {
  report: Handlebars.TemplateDelegate;
  /** Several sets in one document (digest/html.ts). */
  digest: Handlebars.TemplateDelegate;
  header: Handlebars.TemplateDelegate;
  footer: Handlebars.TemplateDelegate;
  css: string;
  /** Folders searched, user folder first. */
  dirs: string[];
}

/**
 * Loads `report/report.hbs`, `report/header.hbs`, `report/footer.hbs`, `report/report.css` and every
 * `report/partials/*.hbs`. With `templatesDir` (config `templates.dir`, the user's copy of
 * `templates/`), each file is taken from there when present and from the packaged set otherwise, so a
 * user can override only the stylesheet. Escaping stays on: API strings are untrusted.
 */
export function loadReportTemplates(templatesDir?: string): ReportTemplates {
  const dirs = [
    ...(templatesDir ? [join(templatesDir, 'report')] : []),
    join(PACKAGED_TEMPLATES_DIR, 'report'),
  ];
  if (templatesDir && !existsSync(templatesDir)) {
    throw new TemplateError(`templates.dir ${templatesDir} does not exist`);
  }
  const find = (name: string): string => {
    for (const dir of dirs) {
      const file = join(dir, name);
      if (existsSync(file)) return file;
    }
    throw new TemplateError(`report template ${name} not found in ${dirs.join(' or ')}`);
  };
  const env = Handlebars.create();
  registerLocaleHelpers(env, readCatalogOverrides(templatesDir));
  // Partials: packaged ones first, user ones override by name. A user's partial is compiled when a
  // template first calls it; a packaged one was compiled by the build (packaged-templates.ts).
  for (const dir of [...dirs].reverse()) {
    const partialDir = join(dir, 'partials');
    if (!existsSync(partialDir)) continue;
    for (const name of readdirSync(partialDir).filter((f) => f.endsWith('.hbs'))) {
      const file = join(partialDir, name);
      const source = readUnder(templatesDir, file);
      env.registerPartial(
        basename(name, '.hbs'),
        dir === dirs.at(-1) ? (packagedTemplate(env, file, source) ?? source) : source,
      );
    }
  }
  const compile = (name: string) => {
    const file = find(name);
    try {
      return compileTemplate(env, file, readUnder(templatesDir, file));
    } catch (error) {
      if (error instanceof TemplateError) throw error;
      throw new TemplateError(`template ${file} does not compile: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
  return {
    report: compile('report.hbs'),
    digest: compile('digest.hbs'),
    header: compile('header.hbs'),
    footer: compile('footer.hbs'),
    css: readUnder(templatesDir, find('report.css')),
    dirs,
  };
}

/** Compiled templates per folder, with the files' stamps they were compiled from. */
const compiled = new Map<string, { stamp: string; templates: ReportTemplates }>();

/**
 * `loadReportTemplates`, compiled once per process per template folder: a batch or a daemon compiles
 * the templates once, not once per report. Each call still stats the files (a fraction of a
 * millisecond), so an edited template is picked up by the next render, as before. The compiled
 * functions take Handlebars runtime options, so helpers registered per render (a locale, say) are
 * passed at call time: `templates.report(view, { helpers })`.
 */
export function reportTemplatesFor(templatesDir?: string): ReportTemplates {
  const key = templatesDir ?? '';
  const stamp = templateStamp(templatesDir);
  const cached = compiled.get(key);
  if (cached && cached.stamp === stamp) return cached.templates;
  const templates = loadReportTemplates(templatesDir);
  compiled.set(key, { stamp, templates });
  return templates;
}

/** Names, sizes and modification times of every report template file a folder set offers. */
function templateStamp(templatesDir?: string): string {
  const dirs = [
    ...(templatesDir ? [join(templatesDir, 'report')] : []),
    join(PACKAGED_TEMPLATES_DIR, 'report'),
  ];
  const parts: string[] = [];
  for (const dir of dirs) {
    for (const sub of ['', 'partials']) {
      const folder = join(dir, sub);
      let names: string[];
      try {
        names = readdirSync(folder);
      } catch {
        parts.push(`${folder}:none`);
        continue;
      }
      for (const name of names.sort()) {
        try {
          const stat = statSync(join(folder, name));
          if (stat.isFile()) parts.push(`${folder}/${name}:${stat.size}:${stat.mtimeMs}`);
        } catch {
          // removed while listing: the next call sees the change
        }
      }
    }
  }
  parts.push(catalogStamp(templatesDir));
  return parts.join('\n');
}
