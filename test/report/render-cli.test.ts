import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli } from '../helpers/cli.js';
import { fixtureSnapshot } from './fixtures.js';
import { chromiumProcessesWith, pdfText, seededStoreConfig, seedStore } from './helpers.js';

let dir: string;
let config: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-render-cli-'));
  await seedStore(join(dir, 'store.sqlite'), [
    fixtureSnapshot({ id: 1, runId: 4825, run: 'W44 2026' }),
    fixtureSnapshot({ id: 2, runId: 4826, run: 'W46 2026', brand: 'Northwind: Coffee/Tea' }),
    // A second set whose two runs carry the same label: a batch must not write one over the other.
    fixtureSnapshot({
      id: 3,
      runId: 5001,
      run: 'Week 1',
      querySetId: 102,
      querySet: 'Tea buyers',
      brand: 'Northwind: Coffee/Tea',
    }),
    fixtureSnapshot({
      id: 4,
      runId: 5002,
      run: 'Week 1',
      querySetId: 102,
      querySet: 'Tea buyers',
      brand: 'Northwind: Coffee/Tea',
    }),
  ]);
  config = join(dir, 'reportd.yaml');
  writeFileSync(config, seededStoreConfig('output:', '  dir: ./reports'));
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
    // Three processes, each of which starts Chromium before it finds out: minutes on a loaded machine.
  }, 180_000);

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

  it('renders every stored snapshot once with --set all --run all, through one browser', async () => {
    const marker = randomUUID();
    const out = join(dir, 'all');
    const run = await cli(
      ['render', '--config', config, '--set', 'all', '--run', 'all', '--format', 'pdf,html', '--out', out],
      marker,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const paths = run.stdout.trim().split('\n');
    // By set id, newest run first; the two runs labelled alike get their run id in the name.
    const tea = 'Northwind Coffee Tea - Tea buyers - Week 1';
    const coffee = 'Northwind Coffee Tea - Coffee buyers — DACH';
    expect(paths).toEqual(
      [`${coffee} - W46 2026`, `${coffee} - W44 2026`, `${tea} - run 5002`, `${tea} - run 5001`].flatMap(
        (base) => [join(out, `${base}.pdf`), join(out, `${base}.html`)],
      ),
    );
    expect(new Set(paths).size).toBe(8);
    expect(readdirSync(out).sort()).toEqual(paths.map((path) => basename(path)).sort());
    expect(pdfText(paths[2]!)).toContain('W44 2026');
    expect(pdfText(paths[4]!)).toContain('Tea buyers');
    expect(chromiumProcessesWith(marker)).toEqual([]);
  });

  it('takes lists of sets and runs, and refuses a run no listed set holds before writing anything', async () => {
    const out = join(dir, 'lists');
    const run = await cli(
      [
        'render',
        '--config',
        config,
        '--set',
        '102,101',
        '--run',
        '5001,4825',
        '--format',
        'html',
        '--out',
        out,
      ],
      randomUUID(),
    );
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((path) => basename(path)),
    ).toEqual([
      'Northwind Coffee Tea - Tea buyers - Week 1.html',
      'Northwind Coffee Tea - Coffee buyers — DACH - W44 2026.html',
    ]);
    const missing = await cli(
      ['render', '--config', config, '--set', '101,102', '--run', '4825,777', '--out', join(dir, 'none')],
      randomUUID(),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      'reportd: run 777 is not stored in any of query sets 101, 102 (run `reportd sync` first)',
    );
    expect(existsSync(join(dir, 'none'))).toBe(false);
    const badList = await cli(['render', '--config', config, '--set', '101,x'], randomUUID());
    expect(badList.code).toBe(2);
    expect(badList.stderr.trim()).toBe('reportd: --set must be a positive integer, got "x"');
  });
});
