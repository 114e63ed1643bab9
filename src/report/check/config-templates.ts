import type { Config } from '../../config/index.js';
import { DEFAULT_LOCALE } from '../../config/locale-tags.js';
import { checkTemplates, type TemplateProblem } from './templates-check.js';

/**
 * The template problems of a config: each template folder its reports render with (the top-level
 * `templates.dir`, each report's own), checked against the catalogs of the locales those reports
 * print in. A config without reports checks the top-level folder in the default locale.
 */
export function configTemplateProblems(config: Pick<Config, 'templates' | 'reports'>): TemplateProblem[] {
  const folders = new Map<string, Set<string>>();
  const use = (dir: string | undefined, locale: string) => {
    const key = dir ?? '';
    const locales = folders.get(key) ?? new Set<string>();
    locales.add(locale);
    folders.set(key, locales);
  };
  for (const report of config.reports) use(report.templates?.dir ?? config.templates.dir, report.locale);
  if (folders.size === 0) use(config.templates.dir, DEFAULT_LOCALE);
  const problems: TemplateProblem[] = [];
  const seen = new Set<string>();
  for (const [dir, locales] of folders) {
    for (const problem of checkTemplates({ templatesDir: dir || undefined, locales: [...locales] })) {
      // The built-in files are shared by every folder: a problem in one is said once.
      const key = `${problem.file}:${problem.line}:${problem.column}:${problem.message}`;
      if (!seen.has(key)) problems.push(problem);
      seen.add(key);
    }
  }
  return problems;
}
