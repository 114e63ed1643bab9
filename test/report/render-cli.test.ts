import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli } from '../helpers/cli.js';
import { fixtureSnapshot } from './fixtures.js';
import { chromiumProcessesWith, pdfText, seedStore } from './helpers.js';

let dir: string;
let config: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-render-cli-'));
  seedStore(join(dir, 'store.sqlite'), [
    fixtureSnapshot({ id: 1, runId: 4825, run: 'W44 2026' }),
    fixtureSnapshot({ id: 2, runId: 4826, run: 'W46 2026', brand: 'Northwind: Coffee/Tea' }),
  ]);
  config = join(dir, 'reportd.yaml');
  writeFileSync(
    config,
    [
      'accounts:',
      '  - name: main',
      '    base_url: http://127.0.0.1:1/v2/integration',
      '    api_key: key',
      '    api_secret: secret-value',
      'store:',
      '  path: ./store.sqlite',
      'output:',
      '  dir: ./reports',
      '',
    ].join('\n'),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The built CLI; the marker is inherited by Chromium and tells this test's browsers from any other. */
function cli(args: string[], marker: string, onSpawn?: (child: ChildProcess) => void): Promise<CliResult> {
  return runCli(args, { env: { REPORTD_TEST_MARKER: marker }, onSpawn });
}

describe('reportd render', () => {
  it('writes pdf, xlsx and html of the newest complete snapshot and leaves no Chromium behind', async () => {
    const marker = randomUUID();
    const out = join(dir, 'out');
    const run = await cli(
      ['render', '--config', config, '--set', '101', '--format', 'pdf,xlsx,html', '--out', out],
      marker,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const paths = run.stdout.trim().split('\n');
    expect(paths).toEqual(
      ['pdf', 'xlsx', 'html'].map((ext) =>
        join(out, `Northwind Coffee Tea - Coffee buyers — DACH - W46 2026.${ext}`),
      ),
    );
    for (const path of paths) expect(existsSync(path)).toBe(true);
    expect(pdfText(paths[0]!)).toContain('Northwind: Coffee/Tea');
    const workbook = await new ExcelJS.Workbook().xlsx.readFile(paths[1]!);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toContain('Presence');
    expect(chromiumProcessesWith(marker)).toEqual([]);
  });

  it('renders an older run by id into the configured output folder', async () => {
    const run = await cli(
      ['render', '--config', config, '--set', '101', '--run', '4825', '--format', 'html'],
      randomUUID(),
    );
    expect(run.code).toBe(0);
    // The brand's current name (from the catalog) names every run's files.
    expect(run.stdout.trim()).toBe(
      join(dir, 'reports', 'Northwind Coffee Tea - Coffee buyers — DACH - W44 2026.html'),
    );
  });

  it('says in one line which set and run are not stored', async () => {
    const run = await cli(['render', '--config', config, '--set', '101', '--run', '999'], randomUUID());
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('run 999 of query set 101 is not stored');
    const none = await cli(['render', '--config', config, '--set', '555'], randomUUID());
    expect(none.stderr).toContain('no complete snapshot of query set 555 is stored');
    const badFormat = await cli(
      ['render', '--config', config, '--set', '101', '--format', 'pdf,docx'],
      randomUUID(),
    );
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain('--format takes pdf, xlsx, html');
  });

  it('names a store path that does not exist, and creates nothing there', async () => {
    const typo = join(dir, 'typo.yaml');
    writeFileSync(typo, readFileSync(config, 'utf8').replace('./store.sqlite', './stroe.sqlite'));
    for (const args of [['render', '--set', '101'], ['status'], ['history']]) {
      const run = await cli([...args, '--config', typo], randomUUID());
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(
        `reportd: store ${join(dir, 'stroe.sqlite')} does not exist (check store.path, or run \`reportd sync\` first)`,
      );
    }
    expect(existsSync(join(dir, 'stroe.sqlite'))).toBe(false);
  });

  it('closes Chromium when killed mid-render', async () => {
    const marker = randomUUID();
    const run = await cli(
      ['render', '--config', config, '--set', '101', '--out', join(dir, 'killed')],
      marker,
      (child) => {
        const poll = setInterval(() => {
          if (chromiumProcessesWith(marker).length > 0) {
            clearInterval(poll);
            child.kill('SIGTERM');
          }
        }, 50);
        child.on('exit', () => clearInterval(poll));
      },
    );
    expect(run.code === 143 || run.signal === 'SIGTERM').toBe(true);
    // Chromium's helpers may take a moment to notice their parent is gone.
    const deadline = Date.now() + 5_000;
    while (chromiumProcessesWith(marker).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(chromiumProcessesWith(marker)).toEqual([]);
  });
});
