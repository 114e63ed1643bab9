import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  configJsonSchema,
  JSON_SCHEMA_FILE,
  REFERENCE_FILE,
  renderConfigReference,
  renderJsonSchema,
} from '../../src/config/reference.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const STALE = 'is stale: run `npm run gen:config`';

describe('generated config documents', () => {
  it(`${JSON_SCHEMA_FILE} matches the schema`, () => {
    expect(readFileSync(join(root, JSON_SCHEMA_FILE), 'utf8'), `${JSON_SCHEMA_FILE} ${STALE}`).toBe(
      renderJsonSchema(),
    );
  });

  it(`${REFERENCE_FILE} matches the schema`, () => {
    expect(readFileSync(join(root, REFERENCE_FILE), 'utf8'), `${REFERENCE_FILE} ${STALE}`).toBe(
      renderConfigReference(),
    );
  });

  it('documents every option, with its default when it has one', () => {
    type Node = { description?: string; default?: unknown; properties?: Record<string, Node>; items?: Node };
    const undocumented: string[] = [];
    const visit = (path: string, node: Node) => {
      if (!node.description) undocumented.push(`${path}: no description`);
      else if (
        node.default !== undefined &&
        typeof node.default !== 'object' &&
        !/Default/.test(node.description)
      ) {
        undocumented.push(`${path}: description does not state the default`);
      }
      for (const [key, child] of Object.entries(node.properties ?? {})) visit(`${path}.${key}`, child);
      for (const [key, child] of Object.entries(node.items?.properties ?? {}))
        visit(`${path}[].${key}`, child);
    };
    for (const [key, node] of Object.entries((configJsonSchema() as Node).properties ?? {})) visit(key, node);
    expect(undocumented).toEqual([]);
  });

  it('mentions every option in the commented example', () => {
    const example = readFileSync(join(root, 'config/reportd.example.yaml'), 'utf8');
    const keys = [...renderConfigReference().matchAll(/^\| `([^`]+)` \|/gm)].map(
      (match) => match[1]!.split('.').pop()!,
    );
    const missing = [...new Set(keys)].filter(
      (key) => !new RegExp(`\\b${key.replace('[]', '')}:`).test(example),
    );
    expect(missing).toEqual([]);
  });
});
