import type { z } from 'zod';

/**
 * Walks a zod schema the way Handlebars walks a view: `cover.brand`, `rows.length`, `parts.0.label`.
 * `ANY` stands for a value whose shape is not known (a helper's result, an `{{#each}}` over an
 * object's values); anything read below it is accepted.
 */
export const ANY = Symbol('any');
export type Shape = z.ZodType | typeof ANY;

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
}

const def = (schema: z.ZodType) => (schema as unknown as { def: Def }).def;

/** The schema without optional, nullable and default wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let node = schema;
  for (;;) {
    const d = def(node);
    if ((d.type === 'optional' || d.type === 'nullable' || d.type === 'default') && d.innerType) {
      node = d.innerType;
    } else return node;
  }
}

/** The shape of `shape[key]`, or undefined when a view of that shape has no such key. */
export function child(shape: Shape, key: string): Shape | undefined {
  if (shape === ANY) return ANY;
  const node = unwrap(shape);
  const d = def(node);
  switch (d.type) {
    case 'object':
      return d.shape && Object.hasOwn(d.shape, key) ? d.shape[key] : undefined;
    case 'array':
      if (key === 'length') return ANY;
      return /^\d+$/.test(key) && d.element ? d.element : undefined;
    case 'string':
      return key === 'length' ? ANY : undefined;
    case 'union': {
      const found = (d.options ?? []).map((option) => child(option, key)).filter((s) => s !== undefined);
      return found[0];
    }
    case 'unknown':
    case 'any':
      return ANY;
    default:
      return undefined;
  }
}

/** What `{{#each}}` iterates over: an array's element; an object's values are not known here. */
export function elementOf(shape: Shape): Shape {
  if (shape === ANY) return ANY;
  const d = def(unwrap(shape));
  if (d.type === 'array' && d.element) return d.element;
  return ANY;
}

/** The keys a view of this shape has, to suggest the one a misspelt variable meant. */
export function keysOf(shape: Shape): string[] {
  if (shape === ANY) return [];
  const d = def(unwrap(shape));
  if (d.type === 'object' && d.shape) return Object.keys(d.shape);
  if (d.type === 'union') return (d.options ?? []).flatMap(keysOf);
  return [];
}
