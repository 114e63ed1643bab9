import type Handlebars from 'handlebars';

/** A packaged template compiled at build time: its source, the options it was compiled with, the result. */
export interface PrecompiledTemplate {
  source: string;
  options: string;
  spec: Parameters<typeof Handlebars.template>[0];
}

/**
 * The packaged templates (`templates/`, by path under it) as `npm run build` compiled them: the
 * bundled CLI's copy of this module is written by scripts/build-cli.ts. Here, for runs from the
 * sources (tsx, tests, `dist/` as tsc emits it), there are none, and every template is compiled at
 * run time (packaged-templates.ts).
 */
export const PRECOMPILED: Readonly<Record<string, PrecompiledTemplate>> = {};
