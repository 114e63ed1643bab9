import type { Config } from '../../config/index.js';
import { templateFolders } from './template-folders.js';
import { checkTemplates, type TemplateProblem } from './templates-check.js';

/**
 * The template problems of a config: each template folder its reports render with, checked against
 * the catalogs of the locales those reports print in (template-folders.ts; `ownFoldersOnly` as there).
 */
export function configTemplateProblems(
  config: Pick<Config, 'templates' | 'reports'>,
  options: { ownFoldersOnly?: boolean } = {},
): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const seen = new Set<string>();
  for (const [dir, locales] of templateFolders(config, options)) {
    for (const problem of checkTemplates({ templatesDir: dir || undefined, locales: [...locales] })) {
      // The built-in files are shared by every folder: a problem in one is said once.
      const key = `${problem.file}:${problem.line}:${problem.column}:${problem.message}`;
      if (!seen.has(key)) problems.push(problem);
      seen.add(key);
    }
  }
  return problems;
}
