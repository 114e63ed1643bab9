import type { Config } from '../../config/index.js';
import { DEFAULT_LOCALE } from '../../config/locale-tags.js';

/**
 * The template folders a config's reports render with (the top-level `templates.dir`, each report's
 * own; '' for the built-in templates alone), each with the locales its reports print in. A config
 * without reports names the top-level folder in the default locale.
 *
 * `ownFoldersOnly` (`reportd check`) leaves out the built-in templates alone: those give no problem
 * in any locale (`reportd templates check --dir templates/`, which the suite runs, checks them in
 * every one), and walking them was a quarter of `check`'s time. Light on purpose (no Handlebars, no
 * catalogs): `check` asks it before loading the template checker.
 */
export function templateFolders(
  config: Pick<Config, 'templates' | 'reports'>,
  options: { ownFoldersOnly?: boolean } = {},
): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>();
  const use = (dir: string | undefined, locale: string) => {
    const key = dir ?? '';
    const locales = folders.get(key) ?? new Set<string>();
    locales.add(locale);
    folders.set(key, locales);
  };
  for (const report of config.reports) use(report.templates?.dir ?? config.templates.dir, report.locale);
  if (folders.size === 0) use(config.templates.dir, DEFAULT_LOCALE);
  if (options.ownFoldersOnly) folders.delete('');
  return folders;
}
