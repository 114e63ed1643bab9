import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_TEMPLATES_DIR } from '../../src/report/templates.js';
import { runCli } from '../helpers/cli.js';

/**
 * `reportd templates check` over the built CLI: a user's copy of the cover with a misspelt message
 * key, a helper that does not exist and a variable the view does not have; the built-in templates.
 */

let dir: string;
const cover = join(PACKAGED_TEMPLATES_DIR, 'report', 'partials', 'cover.hbs');

const accounts = `accounts:
  - name: acme
    base_url: http://127.0.0.1:1/v2/integration
    api_key: k
    api_secret: s
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-templates-'));
  mkdirSync(join(dir, 'bad', 'report', 'partials'), { recursive: true });
  const source = readFileSync(cover, 'utf8')
    .replace('{{t "cover.run"}}', '{{t "cover.rnu"}}')
    .replace('<div class="cover-date">{{runDate}}</div>', '<div class="cover-date">{{shout runDate}}</div>')
    .replace('<div class="cover-run-name">{{run}}</div>', '<div class="cover-run-name">{{runName}}</div>');
  writeFileSync(join(dir, 'bad', 'report', 'partials', 'cover.hbs'), source);
  writeFileSync(join(dir, 'bad.yaml'), `${accounts}templates: { dir: ./bad }\n`);
  writeFileSync(join(dir, 'good.yaml'), accounts);
  cpSync(join(PACKAGED_TEMPLATES_DIR, 'report', 'report.hbs'), join(dir, 'report.hbs'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Line and column (1-based) of the first `needle` in the bad cover. */
function at(needle: string): string {
  const lines = readFileSync(join(dir, 'bad', 'report', 'partials', 'cover.hbs'), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  return `${line + 1}:${(lines[line] ?? '').indexOf(needle) + 1}`;
}

describe('reportd templates check', () => {
  it('names an unknown message key, helper and variable with file:line:column, exit 1', async () => {
    const result = await runCli(['templates', 'check', '--config', join(dir, 'bad.yaml')], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const file = 'bad/report/partials/cover.hbs';
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      `${file}:${at('"cover.rnu"')}: message "cover.rnu" is missing from the en catalog`,
      `${file}:${at('runName')}: unknown variable "runName": the view has no "runName" (did you mean "run"?)`,
      `${file}:${at('shout')}: unknown helper "shout"`,
      'reportd: 3 template problems (see above)',
    ]);

    // `--dir` checks a folder in every locale; `reportd check` refuses the config with the same lines.
    const everyLocale = await runCli(['templates', 'check', '--dir', join(dir, 'bad')], { cwd: dir });
    expect(everyLocale.code).toBe(1);
    expect(everyLocale.stderr).toContain('message "cover.rnu" is missing from the en, de, fr, es catalogs');
    const check = await runCli(['check', '--config', join(dir, 'bad.yaml')], { cwd: dir });
    expect(check.code).toBe(2);
    expect(check.stderr).toContain(
      `templates: ${'bad/report/partials/cover.hbs'}:${at('shout')}: unknown helper "shout"`,
    );
  });

  it('passes the built-in templates, and says where a template does not parse', async () => {
    const good = await runCli(['templates', 'check', '--config', join(dir, 'good.yaml')], { cwd: dir });
    expect(good.stderr).toBe('');
    expect(good.code).toBe(0);
    const builtIn = await runCli(['templates', 'check', '--dir', PACKAGED_TEMPLATES_DIR], { cwd: dir });
    expect(builtIn.stderr).toBe('');
    expect(builtIn.code).toBe(0);

    writeFileSync(join(dir, 'bad', 'report', 'partials', 'broken.hbs'), '<p>\n  {{#if cover}}{{brand}\n');
    const broken = await runCli(['templates', 'check', '--dir', join(dir, 'bad')], { cwd: dir });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^bad\/report\/partials\/broken\.hbs:2:\d+: Parse error/m);
    rmSync(join(dir, 'bad', 'report', 'partials', 'broken.hbs'));
  });
});
