import type { Command } from 'commander';
import { ReportdError, TemplateProblemsError } from '../errors/index.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd templates check`: every template a report renders with, checked before anything renders:
 * it compiles, its partials and helpers exist, its `{{t "key"}}` messages exist in every configured
 * locale's catalog, and every variable it reads is in the view model (src/report/check/view-schema.ts).
 * One `file:line:column: problem` line each on stderr, exit 1; nothing printed and exit 0 when clean.
 */

interface CheckFlags extends ConfigOptions {
  dir?: string;
}

export function register(program: Command): void {
  const templates = program.command('templates').description('work with report and email templates');
  templates
    .command('check')
    .description(
      'check the templates reports use: syntax, partials, helpers, messages in every locale, variables of the view',
    )
    .addOption(configOption)
    .option('--dir <folder>', "check this templates folder (in every locale) instead of the config's")
    .action(async (flags: CheckFlags) => {
      const { formatProblem } = await import('../report/check/templates-check.js');
      let problems: import('../report/check/templates-check.js').TemplateProblem[];
      if (flags.dir !== undefined) {
        const { existsSync } = await import('node:fs');
        const { resolve } = await import('node:path');
        const dir = resolve(flags.dir);
        if (!existsSync(dir)) throw new ReportdError(`--dir ${flags.dir} does not exist`);
        const { checkTemplates } = await import('../report/check/templates-check.js');
        const { REPORT_LOCALES } = await import('../config/locale-tags.js');
        problems = checkTemplates({ templatesDir: dir, locales: REPORT_LOCALES });
      } else {
        const { loadConfig } = await import('../config/load.js');
        const { configTemplateProblems } = await import('../report/check/config-templates.js');
        problems = configTemplateProblems(loadConfig(flags.config));
      }
      for (const problem of problems) process.stderr.write(`${formatProblem(problem)}\n`);
      if (problems.length > 0) {
        throw new TemplateProblemsError(
          `${problems.length} template problem${problems.length === 1 ? '' : 's'} (see above)`,
        );
      }
    });
}
