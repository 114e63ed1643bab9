import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { fixtureSnapshot } from './fixtures.js';
import { seededStoreConfig, seedStore } from './helpers.js';

/**
 * The bundled CLI carries the packaged report templates compiled by `npm run build`
 * (src/report/packaged-templates.ts): what it prints must be what the templates say, whether they
 * come compiled from the build, compiled at run time from a user's copy, or edited after the build.
 */
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-packaged-templates-'));
  await seedStore(join(dir, 'store.sqlite'), [fixtureSnapshot({ id: 1, runId: 4826, run: 'W46 2026' })]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Renders the HTML with `bin` and `templates.dir` (relative to the config); exit code, stderr, the HTML. */
async function renderHtml(bin: string, name: string, templatesDir?: string) {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, seededStoreConfig(...(templatesDir ? ['templates:', `  dir: ${templatesDir}`] : [])));
  const out = join(dir, `out-${name}`);
  const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [bin, 'render', '--config', config, '--set', '101', '--format', 'html', '--out', out],
      { cwd: dir },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
  });
  const files = existsSync(out) ? readdirSync(out) : [];
  const html = files.length === 1 ? readFileSync(join(out, files[0]!), 'utf8') : undefined;
  // The minute the document was generated is the one thing two renders may disagree on.
  return { ...result, files, html: html?.replace(/(<dt>Generated<\/dt><dd>)[^<]*/, '$1…') };
}

describe('the packaged templates in the built CLI', () => {
  it('print the report as the same templates compiled at run time from a user folder do', async () => {
    cpSync(join(ROOT, 'templates'), join(dir, 'copy'), { recursive: true });
    const built = await renderHtml(BIN, 'built');
    const copied = await renderHtml(BIN, 'copied', './copy');
    expect(built.stderr).toBe('');
    expect(copied.stderr).toBe('');
    expect(built.html).toContain('W46 2026');
    expect(copied.html).toBe(built.html);
  });

  it('print a packaged template edited after the build as edited, partials too', async () => {
    // A copy of the installed package: the built bundle and the templates beside it.
    const pkg = join(dir, 'package');
    for (const part of ['bin', 'dist/bundle', 'templates', 'package.json']) {
      cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
    if (existsSync(join(ROOT, '.node'))) symlinkSync(join(ROOT, '.node'), join(pkg, '.node'));
    const report = join(pkg, 'templates', 'report', 'report.hbs');
    writeFileSync(report, readFileSync(report, 'utf8').replace('<body', '<!-- edited report --><body'));
    const partials = join(pkg, 'templates', 'report', 'partials');
    const cover = join(partials, 'cover.hbs');
    writeFileSync(cover, `<!-- edited cover -->${readFileSync(cover, 'utf8')}`);

    const edited = await renderHtml(join(pkg, 'bin', 'reportd.js'), 'edited');
    expect(edited.stderr).toBe('');
    expect(edited.html).toContain('<!-- edited report --><body');
    expect(edited.html).toContain('<!-- edited cover -->');
  });

  it('name a user template that does not compile, with its line, and write nothing', async () => {
    const broken = join(dir, 'broken');
    cpSync(join(ROOT, 'templates'), broken, { recursive: true });
    const report = join(broken, 'report', 'report.hbs');
    const lines = readFileSync(report, 'utf8').split('\n');
    lines[2] = `${lines[2]} {{/if}}`;
    writeFileSync(report, lines.join('\n'));

    const run = await renderHtml(BIN, 'broken', './broken');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      new RegExp(
        `^reportd: template ${report.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not compile: Parse error on line 3:`,
      ),
    );
    expect(run.files).toEqual([]);
  });
});
