import type {} from 'handlebars';
import { closest } from '../../config/suggest.js';
import { ANY, child, elementOf, keysOf, type Shape } from './schema-path.js';

/**
 * One template's problems, found by walking its syntax tree with the shape of the view it is
 * rendered with: a partial or helper that does not exist, a `{{t "key"}}` missing from a locale's
 * catalog, a variable the view does not have. Contexts follow Handlebars' rules: `{{#each}}` and
 * `{{#with}}` narrow it, `../` climbs, `@root` restarts, a partial gets its argument (or the caller's
 * context), block params name a value.
 */

export interface TemplateProblem {
  file: string;
  line: number;
  column: number;
  message: string;
}

export interface WalkEnv {
  /** Registered helpers (`t`, `number`, …) besides Handlebars' own. */
  helpers: ReadonlySet<string>;
  /** Partials by name: their file and parsed body. */
  partials: ReadonlyMap<string, { file: string; ast: hbs.AST.Program }>;
  /** Message keys per catalog (`en`, `de`, …) that `{{t}}` must find in each. */
  catalogs: ReadonlyMap<string, ReadonlySet<string>>;
  report(problem: TemplateProblem): void;
}

const BUILTIN_HELPERS = new Set(['if', 'unless', 'each', 'with', 'lookup', 'log']);

interface Scope {
  /** Contexts from the outermost (the root view) to the current one. */
  stack: Shape[];
  locals: ReadonlyMap<string, Shape>;
}

export class TemplateWalk {
  /** Partials already walked with a given context, so a partial called in a loop is read once. */
  private readonly visited = new Map<string, Set<Shape>>();
  /** The partials being walked, innermost last: a problem found inside belongs to the innermost. */
  private readonly within: string[] = [];
  /**
   * Problems found in a partial, with how many of its walks found each. A partial serves several
   * callers (the KPI card: cards with a caption and cards without), so a variable is unknown only
   * when no context it is given has it: reported once every walk found it (see `finish`).
   */
  private readonly counted: Set<string>[] = [];
  private readonly inPartials = new Map<string, Map<string, { problem: TemplateProblem; count: number }>>();

  constructor(private readonly env: WalkEnv) {}

  template(file: string, ast: hbs.AST.Program, root: Shape): void {
    this.program(file, ast, { stack: [root], locals: new Map() });
  }

  /** Partials no template called: read once for what does not depend on a context (helpers, messages). */
  unusedPartials(): void {
    for (const [name, partial] of this.env.partials) {
      if (this.visited.has(name)) continue;
      this.visited.set(name, new Set([ANY]));
      this.walkPartial(name, partial, { stack: [ANY], locals: new Map() });
    }
  }

  /** Reports the partials' problems that every walk of their partial found. */
  finish(): void {
    for (const [name, problems] of this.inPartials) {
      const walks = this.visited.get(name)?.size ?? 0;
      for (const { problem, count } of problems.values()) if (count >= walks) this.env.report(problem);
    }
  }

  private walkPartial(name: string, partial: { file: string; ast: hbs.AST.Program }, scope: Scope): void {
    this.within.push(name);
    // Counted once per walk, however often the walk meets it (a loop body, a nested call).
    this.counted.push(new Set());
    try {
      this.program(partial.file, partial.ast, scope);
    } finally {
      this.within.pop();
      this.counted.pop();
    }
  }

  private program(file: string, program: hbs.AST.Program | undefined, scope: Scope): void {
    for (const statement of program?.body ?? []) this.statement(file, statement, scope);
  }

  private statement(file: string, node: hbs.AST.Statement, scope: Scope): void {
    switch (node.type) {
      case 'MustacheStatement': {
        const m = node as hbs.AST.MustacheStatement;
        this.call(file, m.path, m.params, m.hash, scope, false);
        return;
      }
      case 'BlockStatement':
        this.block(file, node as hbs.AST.BlockStatement, scope);
        return;
      case 'PartialStatement':
      case 'PartialBlockStatement':
        this.partial(file, node as hbs.AST.PartialStatement & { program?: hbs.AST.Program }, scope);
        return;
      default:
        return; // content, comments, decorators
    }
  }

  /** `{{name args}}`: a helper call, or a variable when nothing follows the name. */
  private call(
    file: string,
    path: hbs.AST.PathExpression | hbs.AST.Literal | hbs.AST.SubExpression,
    params: hbs.AST.Expression[],
    hash: hbs.AST.Hash | undefined,
    scope: Scope,
    mustBeHelper: boolean,
  ): Shape {
    if (path.type !== 'PathExpression') return ANY;
    const p = path as hbs.AST.PathExpression;
    const name = p.original;
    const isHelper =
      p.parts.length === 1 && !p.data && (this.env.helpers.has(name) || BUILTIN_HELPERS.has(name));
    if (isHelper) {
      this.args(file, params, hash, scope);
      if (name === 't') this.messageKey(file, params[0]);
      return ANY;
    }
    if (mustBeHelper || params.length > 0 || (hash?.pairs.length ?? 0) > 0) {
      this.problem(file, p, `unknown helper "${name}"`);
      return ANY;
    }
    return this.variable(file, p, scope);
  }

  private args(
    file: string,
    params: hbs.AST.Expression[],
    hash: hbs.AST.Hash | undefined,
    scope: Scope,
  ): void {
    for (const param of [...params, ...(hash?.pairs.map((pair) => pair.value) ?? [])]) {
      this.expression(file, param, scope);
    }
  }

  private expression(file: string, node: hbs.AST.Expression, scope: Scope): Shape {
    if (node.type === 'PathExpression') return this.variable(file, node as hbs.AST.PathExpression, scope);
    if (node.type === 'SubExpression') {
      const sub = node as hbs.AST.SubExpression;
      return this.call(file, sub.path, sub.params, sub.hash, scope, true);
    }
    return ANY;
  }

  private messageKey(file: string, key: hbs.AST.Expression | undefined): void {
    if (key?.type !== 'StringLiteral') return; // a computed key cannot be checked before rendering
    const value = (key as hbs.AST.StringLiteral).value;
    const missing = [...this.env.catalogs].filter(([, keys]) => !keys.has(value)).map(([name]) => name);
    if (missing.length > 0) {
      this.problem(
        file,
        key,
        `message "${value}" is missing from the ${missing.join(', ')} catalog${missing.length > 1 ? 's' : ''}`,
      );
    }
  }

  /** Resolves a variable against the scope; reports it when the view has no such value. */
  private variable(file: string, path: hbs.AST.PathExpression, scope: Scope): Shape {
    const parts = path.parts;
    let shape: Shape | undefined;
    let rest = parts;
    if (path.data) {
      // @index, @key, @first, @last, @partial-block…: Handlebars' own; @root.x: from the top.
      if (parts[0] !== 'root') return ANY;
      shape = scope.stack[0];
      rest = parts.slice(1);
    } else if (path.depth === 0 && parts[0] !== undefined && scope.locals.has(parts[0])) {
      shape = scope.locals.get(parts[0]);
      rest = parts.slice(1);
    } else {
      shape = scope.stack[Math.max(0, scope.stack.length - 1 - path.depth)];
    }
    let walked = '';
    for (const part of rest) {
      const next = shape === undefined ? undefined : child(shape, part);
      if (next === undefined) {
        const known = shape === undefined ? [] : keysOf(shape);
        const guess = closest(part, known);
        const where = walked ? ` in "${walked}"` : '';
        this.problem(
          file,
          path,
          `unknown variable "${path.original}": the view has no "${part}"${where}` +
            (guess ? ` (did you mean "${guess}"?)` : ''),
        );
        return ANY;
      }
      walked = walked ? `${walked}.${part}` : part;
      shape = next;
    }
    return shape ?? ANY;
  }

  private block(file: string, node: hbs.AST.BlockStatement, scope: Scope): void {
    const path = node.path as hbs.AST.PathExpression;
    const name = path.type === 'PathExpression' ? path.original : '';
    const inner = (context: Shape, values: Shape[] = []): Scope => {
      const locals = new Map(scope.locals);
      for (const [i, param] of (node.program.blockParams ?? []).entries())
        locals.set(param, values[i] ?? ANY);
      return { stack: [...scope.stack, context], locals };
    };
    const current = scope.stack[scope.stack.length - 1] ?? ANY;
    if (name === 'each' || name === 'with') {
      const target = node.params[0] ? this.expression(file, node.params[0], scope) : ANY;
      this.args(file, node.params.slice(1), node.hash, scope);
      const context = name === 'each' ? elementOf(target) : target;
      this.program(file, node.program, inner(context, name === 'each' ? [context, ANY] : [context]));
      this.program(file, node.inverse, scope);
      return;
    }
    if (name === 'if' || name === 'unless' || this.env.helpers.has(name)) {
      this.call(file, path, node.params, node.hash, scope, true);
      this.program(file, node.program, inner(current));
      this.program(file, node.inverse, scope);
      return;
    }
    // {{#name}} without a helper of that name: a section over the value (a list repeats, an object narrows).
    const value = this.call(file, path, node.params, node.hash, scope, false);
    this.program(file, node.program, inner(value === ANY ? ANY : elementOrSelf(value)));
    this.program(file, node.inverse, scope);
  }

  private partial(
    file: string,
    node: hbs.AST.PartialStatement & { program?: hbs.AST.Program },
    scope: Scope,
  ): void {
    const nameNode = node.name as hbs.AST.PathExpression;
    const name = nameNode.original;
    // The block of {{#> partial}} renders where {{> @partial-block}} stands: in the caller's context.
    if (node.program) this.program(file, node.program, scope);
    if (name === '@partial-block') return;
    const target = this.env.partials.get(name);
    if (!target) {
      this.problem(file, nameNode, `unknown partial "${name}"`);
      return;
    }
    const context = node.params[0]
      ? this.expression(file, node.params[0], scope)
      : (scope.stack[scope.stack.length - 1] ?? ANY);
    this.args(file, [], node.hash, scope);
    const locals = new Map(scope.locals);
    // Hash arguments are fields of the partial's context; read as locals, they shadow the same name.
    for (const pair of node.hash?.pairs ?? []) locals.set(pair.key, ANY);
    const seen = this.visited.get(name) ?? new Set<Shape>();
    if (seen.has(context) && (node.hash?.pairs.length ?? 0) === 0) return;
    seen.add(context);
    this.visited.set(name, seen);
    this.walkPartial(name, target, { stack: [scope.stack[0] ?? ANY, context], locals });
  }

  private problem(file: string, at: hbs.AST.Node, message: string): void {
    // Handlebars' columns count from 0; editors and `file:line:column` count from 1.
    const problem = { file, line: at.loc.start.line, column: at.loc.start.column + 1, message };
    const partial = this.within[this.within.length - 1];
    if (partial === undefined) {
      this.env.report(problem);
      return;
    }
    const key = `${file}:${problem.line}:${problem.column}:${message}`;
    const walk = this.counted[this.counted.length - 1];
    if (walk?.has(key)) return;
    walk?.add(key);
    const problems = this.inPartials.get(partial) ?? new Map();
    this.inPartials.set(partial, problems);
    const entry = problems.get(key);
    if (entry) entry.count++;
    else problems.set(key, { problem, count: 1 });
  }
}

function elementOrSelf(shape: Shape): Shape {
  const element = elementOf(shape);
  return element === ANY ? shape : element;
}
