/**
 * Handlebars' parser on its own (the package's `Handlebars.parse` is this very function): checking a
 * subject template when the config loads needs the parser only, and importing it alone keeps the
 * compiler and runtime out of what every command reading the config loads.
 */
declare module 'handlebars/dist/cjs/handlebars/compiler/base.js' {
  export const parse: typeof import('handlebars').parse;
}
