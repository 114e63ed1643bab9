// The parser alone (handlebars-parse.d.ts): the config needs no compiler.
import { parse } from 'handlebars/dist/cjs/handlebars/compiler/base.js';

/**
 * The variables an email subject may use. The delivery module fills exactly these; checking them when
 * the config loads turns a typo (`{{brnad}}`) into an error at start-up instead of a subject with a
 * silent gap in every email that follows.
 */
export const SUBJECT_VARIABLES = ['brand', 'query_set', 'run', 'report', 'sets', 'period'] as const;
export type SubjectVariables = Record<(typeof SUBJECT_VARIABLES)[number], string>;

/** Why `template` is not a usable subject, or undefined when it is one. */
export function subjectTemplateProblem(template: string): string | undefined {
  let program: hbs.AST.Program;
  try {
    program = parse(template);
  } catch (error) {
    return `not a valid Handlebars template: ${parseErrorLine((error as Error).message)}`;
  }
  // {{recipient.name}}: the reader's name in a report with `recipients` (empty elsewhere).
  const known = new Set<string>([...SUBJECT_VARIABLES, 'recipient.name']);
  for (const statement of program.body) {
    if (statement.type === 'ContentStatement') continue;
    const path =
      statement.type === 'MustacheStatement' ? (statement as hbs.AST.MustacheStatement).path : null;
    const name = path?.type === 'PathExpression' ? (path as hbs.AST.PathExpression).original : undefined;
    const params = (statement as hbs.AST.MustacheStatement).params ?? [];
    if (name === undefined || params.length > 0) {
      return `use only plain variables: ${SUBJECT_VARIABLES.map((v) => `{{${v}}}`).join(', ')}`;
    }
    if (!known.has(name)) {
      return `unknown variable {{${name}}}; use ${SUBJECT_VARIABLES.map((v) => `{{${v}}}`).join(', ')}`;
    }
  }
  return undefined;
}

/**
 * Handlebars' parse error in one line. Its message is four: where, the template around the spot, a
 * caret under it, what was expected; the first alone ("Parse error on line 1:") says nothing.
 */
function parseErrorLine(message: string): string {
  const [where = message, excerpt, caret, expected] = message.split('\n');
  const at = caret?.indexOf('^') ?? -1;
  if (excerpt === undefined || expected === undefined || at < 0) return where;
  return `${where.replace(/:$/, '')}, after "${excerpt.slice(0, at)}": ${expected}`;
}
