import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as errors from '../../src/errors/index.js';

/**
 * The error registry's completeness, as fastify tests its errors.js: every error class reportd
 * exports has a stable code of its own, and every error class is declared in src/errors/, so this
 * list is all of them.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const classes = Object.entries(errors).filter(
  (entry): entry is [string, typeof errors.ReportdError] =>
    typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('error classes', () => {
  it('every exported error class has a code of its own, and its errors carry it', () => {
    expect(classes.length).toBeGreaterThan(20);
    const seen = new Map<string, string>();
    for (const [name, Class] of classes) {
      const code = Class.code;
      expect(code, name).toMatch(/^ERR_[A-Z_]+$/);
      // A subclass that forgot its own code would show its parent's.
      expect(seen.get(code), `${name} shares ${code}`).toBeUndefined();
      seen.set(code, name);
      // What `error.code` reads on an instance, without knowing each constructor's arguments.
      expect(Reflect.get(Class.prototype, 'code', Object.create(Class.prototype)), name).toBe(code);
    }
    expect(new errors.ConfigError('reportd.yaml', []).code).toBe('ERR_CONFIG_INVALID');
  });

  it('are declared in src/errors/ only', () => {
    const outside = sourceFiles(join(root, 'src'))
      .filter((file) => !relative(root, file).startsWith(join('src', 'errors')))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/\bclass (\w+) extends (\w*Error|ReportdError)\b/g)].map(
          (match) => `${relative(root, file)}: ${match[1]}`,
        ),
      );
    expect(outside).toEqual([]);
  });
});
