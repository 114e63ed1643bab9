import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cliProgram, commandsOf } from '../../src/cli/reference.js';
import { configFromObject } from '../../src/config/load.js';
import { linkTargets, pages, readPage, root } from './pages.js';

/**
 * Keeps the README and the docs/ pages true to the code: their configs validate, every
 * `reportd <command> --flag` they show exists, and the README keeps its quick start and its picture.
 * (Links and anchors: links.test.ts; the generated CLI reference: cli-reference.test.ts.)
 */

const readme = readPage('README.md');
/** Every page's text, README first: configs, commands and flags are checked wherever they appear. */
const docs = pages()
  .map((page) => page.text)
  .join('\n');

/** Each command's words after `reportd` (`render`, or `templates check` for a subcommand) → its flags. */
const options = new Map(
  commandsOf(await cliProgram()).map(({ path, command }) => [
    path,
    new Set(command.options.map((option) => option.long).filter((long): long is string => Boolean(long))),
  ]),
);

/** The longest command path `words` start with: `templates check --x` → `templates check`. */
function commandPath(words: string[]): string {
  let path = words[0]!;
  for (const word of words.slice(1)) {
    if (!options.has(`${path} ${word}`)) break;
    path = `${path} ${word}`;
  }
  return path;
}
const GLOBAL_FLAGS = new Set(['--help', '--version']);

/** Fenced blocks of one language, in order (of `text`: all pages by default). */
function blocks(language: string, text = docs): string[] {
  return [...text.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]!);
}

/**
 * `${VAR}` names a config reads, each set to a placeholder, as `reportd check` would see them: a URL
 * for `*_URL`, a Standard Webhooks secret for `WEBHOOK_SECRET`, text otherwise.
 */
function envFor(text: string): NodeJS.ProcessEnv {
  const placeholder = (name: string) =>
    name.endsWith('_URL')
      ? 'https://x-readme.example.com/hook'
      : name === 'WEBHOOK_SECRET'
        ? `whsec_${Buffer.from('x-readme-placeholder-key').toString('base64')}`
        : 'x-readme';
  return Object.fromEntries(
    [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => [m[1]!, placeholder(m[1]!)]),
  );
}

const work = mkdtempSync(join(tmpdir(), 'reportd-readme-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function validate(text: string): void {
  configFromObject(parse(text), work, envFor(text));
}

describe('README and docs/', () => {
  it('has no placeholder comment left', () => {
    expect(docs).not.toMatch(/<!-- The sections below/);
  });

  it('keeps the two quick-start commands', () => {
    expect(blocks('sh', readme)[0]).toBe('bash scripts/install.sh && npx reportd demo\nnpm test\n');
  });

  it('shows configs that validate', () => {
    const yaml = blocks('yaml');
    const full = yaml.filter((text) => /^accounts:/m.test(text));
    expect(full.length).toBeGreaterThan(0);
    for (const text of full) expect(() => validate(text), text).not.toThrow();
    // Fragments (the Docker settings) are checked inside the first complete config.
    for (const fragment of yaml.filter((text) => !/^accounts:/m.test(text))) {
      const merged = { ...parse(full[0]!), ...parse(fragment) };
      expect(() => configFromObject(merged, work, envFor(full[0]! + fragment)), fragment).not.toThrow();
    }
    const heredocs = [...docs.matchAll(/cat > \S+\.yaml <<'EOF'\n([\s\S]*?)\nEOF/g)].map((m) => m[1]!);
    expect(heredocs.length).toBeGreaterThan(0);
    for (const text of heredocs) expect(() => validate(text), text).not.toThrow();
  });

  it('uses only commands and flags the CLI has', () => {
    const code = [...blocks('sh'), ...[...docs.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)];
    const problems: string[] = [];
    let seen = 0;
    for (const text of code) {
      for (const line of text.split('\n')) {
        const command = line.replace(/\s#.*$/, '');
        for (const match of command.matchAll(/\breportd (?=([a-z][a-z-]*)([^|`]*))/g)) {
          if (match[1] === 'reportd') continue; // `docker exec reportd reportd status`: the container's name
          const name = commandPath(`${match[1]!}${match[2]!}`.trim().split(/\s+/));
          const rest = `${match[1]!}${match[2]!}`.slice(name.length);
          const known = options.get(name);
          if (!known) {
            problems.push(`${line.trim()}: no command "${name}"`);
            continue;
          }
          seen++;
          for (const flag of rest.matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)) {
            if (!known.has(flag[1]!) && !GLOBAL_FLAGS.has(flag[1]!))
              problems.push(`${line.trim()}: reportd ${name} has no ${flag[1]}`);
          }
        }
      }
    }
    expect(seen).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });

  it('shows the report picture, a small PNG', () => {
    expect(linkTargets(readme)).toContain('docs/report-preview.png');
    const png = readFileSync(join(root, 'docs/report-preview.png'));
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(statSync(join(root, 'docs/report-preview.png')).size).toBeLessThan(300 * 1024);
  });
});
