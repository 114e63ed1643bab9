import { join, relative } from 'node:path';
import type Handlebars from 'handlebars';
import { PACKAGE_ROOT } from '../package-root.js';
import { PRECOMPILED } from './precompiled-templates.js';

/** Where report templates come from: the packaged `templates/` at the package root. */
export const PACKAGED_TEMPLATES_DIR = join(PACKAGE_ROOT, 'templates');

/** Compile options each packaged template is compiled with (the default, `{}`, for the others). */
export const TEMPLATE_OPTIONS: Readonly<Record<string, CompileOptions>> = {
  'email/report.hbs': { strict: false },
  // Plain text: no HTML escaping, or "R&D" would arrive as "R&amp;D".
  'email/report.txt.hbs': { noEscape: true },
};

export type CompileOptions = Parameters<typeof Handlebars.precompile>[1];

/**
 * The template of `file`, compiled now, so a mistake in it (a syntax error, a partial given too many
 * arguments) names the file before any rendering starts. A packaged file as the build found it is
 * not compiled at all: `npm run build` compiled it (scripts/build-cli.ts), and compiling the report's
 * templates cost every render about 150 ms of CPU. A user's file, or a packaged one edited since the
 * build, is compiled here, once (Handlebars' own `compile` would compile it again at first use).
 */
export function compileTemplate(
  env: typeof Handlebars,
  file: string,
  source: string,
  options: CompileOptions = {},
): Handlebars.TemplateDelegate {
  const built = packagedTemplate(env, file, source, options);
  if (built) return built;
  // `precompile` writes the template as the source of a JavaScript object, what the build embeds in
  // the bundle; evaluated here, as Handlebars' own `compile` evaluates the code it generates.
  const spec = new Function(`return ${env.precompile(source, { ...options })}`)() as Parameters<
    typeof Handlebars.template
  >[0];
  return env.template(spec);
}

/**
 * The build's compiled template of packaged `file`, when the build saw this very source with these
 * options; undefined otherwise (run from the sources, or the file edited since).
 */
export function packagedTemplate(
  env: typeof Handlebars,
  file: string,
  source: string,
  options: CompileOptions = {},
): Handlebars.TemplateDelegate | undefined {
  const built = PRECOMPILED[relative(PACKAGED_TEMPLATES_DIR, file)];
  return built && built.source === source && built.options === JSON.stringify(options)
    ? env.template(built.spec)
    : undefined;
}
