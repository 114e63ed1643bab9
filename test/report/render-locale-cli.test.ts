import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureSnapshot } from './fixtures.js';
import { pdfText, seededStoreConfig, seedStore } from './helpers.js';

let dir: string;
let config: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-render-locale-'));
  await seedStore(join(dir, 'store.sqlite'), [fixtureSnapshot({ id: 1, runId: 4826, run: 'W46 2026' })]);
  config = join(dir, 'reportd.yaml');
  writeFileSync(config, seededStoreConfig());
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const render = (args: string[]) =>
  runCli(['render', '--config', config, '--set', '101', ...args], {
    env: { REPORTD_TEST_MARKER: randomUUID() },
  });

describe('reportd render --locale --page --landscape (built CLI, real Chromium)', () => {
  it('previews a German report on US Letter, landscape, and a German workbook', async () => {
    const out = join(dir, 'de');
    const run = await render([
      '--format',
      'pdf,xlsx',
      '--locale',
      'de-DE',
      '--page',
      'letter',
      '--landscape',
      '--timezone',
      'Europe/Berlin',
      '--out',
      out,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [pdf, xlsx] = run.stdout.trim().split('\n');
    const info = execFileSync('pdfinfo', [pdf ?? ''], { encoding: 'utf8' });
    expect(info).toMatch(/Page size:\s+792 x 612 pts/);
    const text = pdfText(pdf ?? '');
    expect(text).toContain('KI-Sichtbarkeitsbericht');
    expect(text).toMatch(/\d+,\d %/);
    expect(text).toContain('16. November 2026');
    const workbook = await new ExcelJS.Workbook().xlsx.readFile(xlsx ?? '');
    expect(workbook.worksheets.map((sheet) => sheet.name)).toContain('Präsenz');
  });

  it('A4 portrait, en-US, by default', async () => {
    const run = await render(['--out', join(dir, 'default')]);
    expect(run.code).toBe(0);
    const info = execFileSync('pdfinfo', [run.stdout.trim()], { encoding: 'utf8' });
    expect(info).toMatch(/Page size:\s+595\.\d+ x 841\.\d+ pts/);
    expect(pdfText(run.stdout.trim())).toContain('AI visibility report');
  });

  it('refuses an unknown locale, paper or zone in one line naming the flag', async () => {
    for (const [args, message] of [
      [['--locale', 'pt-BR'], '--locale takes en-US, en-GB, de-DE, fr-FR, es-ES, got "pt-BR"'],
      [['--page', 'a3'], '--page takes A4, Letter, Legal, got "a3"'],
      [['--timezone', 'Mars/Olympus'], '--timezone "Mars/Olympus" is not an IANA time zone'],
    ] as const) {
      const run = await render([...args]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(`reportd: ${message}`);
    }
  });
});
