import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { fixtureSnapshot } from '../report/fixtures.js';
import { seededStoreConfig, seedStore } from '../report/helpers.js';

/**
 * Each command loads only what it uses: `reportd --version` and `--help` (spawned by cron jobs,
 * editors and assistants) load no command's work, and `check` none of the renderer, the workbook, the
 * store drivers or the senders. The built CLI runs as a user runs it, under a recorder of every npm
 * package it loads; a chunk of the bundle counts for the packages inlined in it (the bundle's
 * metafile, dist/bundle/meta.json, says which). How fast that makes it is `npm run bench:cli`.
 */
const MODULE_LOG = fileURLToPath(new URL('../helpers/module-log.mjs', import.meta.url));
const META = join(ROOT, 'dist', 'bundle', 'meta.json');

/** What nothing but the command that uses it may load: the work of render, export, deliver, sync. */
const HEAVY = [
  'puppeteer',
  'puppeteer-core',
  'exceljs',
  'pdf-lib',
  'better-sqlite3',
  'pg',
  '@duckdb/node-api',
  'nodemailer',
  '@aws-sdk/client-s3',
  'ssh2-sftp-client',
  '@slack/web-api',
  'undici',
  'pino',
];

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp?.cleanup());

/** Runs the CLI; returns what it printed and every package, source file and Node.js built-in it loaded. */
async function loads(args: string[], extraEnv: Record<string, string> = {}, cwd = ROOT, exitCode = 0) {
  const log = join(tmp.dir, `${args.join('-').replace(/\W+/g, '_')}.txt`);
  const builtinLog = `${log}.builtins`;
  writeFileSync(log, '');
  writeFileSync(builtinLog, '');
  const run = promisify(execFile)(process.execPath, ['--import', MODULE_LOG, BIN, ...args], {
    cwd,
    env: {
      ...process.env,
      REPORTD_TEST_MODULE_LOG: log,
      REPORTD_TEST_BUILTIN_LOG: builtinLog,
      REPORTD_API_KEY: 'test-key',
      REPORTD_API_SECRET: 'test-secret',
      SMTP_PASSWORD: 'test-password',
      ...extraEnv,
    },
  });
  // A command expected to fail (a sync of an API that is not there) is still recorded.
  const { stdout } = await run.catch((error: { code?: number; stdout?: string }) => {
    if (exitCode === 0 || error.code !== exitCode) throw error;
    return { stdout: error.stdout ?? '' };
  });
  const { outputs } = JSON.parse(readFileSync(META, 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const packages = new Set<string>();
  const sources = new Set<string>();
  const files = new Set<string>();
  const chunks = new Set<string>();
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    if (!line.startsWith('bundle:')) {
      packages.add(line);
      continue;
    }
    const file = `dist/bundle/${line.slice('bundle:'.length)}`;
    const chunk = outputs[file];
    if (!chunk) throw new Error(`${line} is not in ${META}: a stale build?`);
    chunks.add(file);
    for (const input of Object.keys(chunk.inputs)) {
      files.add(input);
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      if (name) packages.add(name);
      else sources.add(input);
    }
  }
  const builtins = new Set(readFileSync(builtinLog, 'utf8').split('\n').filter(Boolean));
  return { stdout, packages, sources, files, chunks, builtins };
}

describe('what a command loads', () => {
  // bin/reportd.js answers these itself (test/cli/launcher.test.ts checks it answers as the program).
  it.each([['--version'], ['-V'], ['--help'], ['-h']])(
    '%s loads nothing of the bundle, not even commander',
    async (flag) => {
      const { stdout, packages, chunks } = await loads([flag]);
      expect(stdout).toMatch(flag.startsWith('--v') || flag === '-V' ? VERSION : /Usage: reportd/);
      expect([...chunks]).toEqual([]);
      expect([...packages]).toEqual([]);
    },
  );

  it('help for one command declares that command only, and loads none of its work', async () => {
    const { stdout, packages, sources } = await loads(['check', '--help']);
    expect(stdout).toContain('Usage: reportd check');
    expect([...packages]).toEqual(['commander']);
    expect(sources).toContain('src/cli/check.ts');
    expect(sources).not.toContain('src/cli/render.ts');
    expect(sources).not.toContain('src/config/load.ts');
    expect(sources).not.toContain('src/config/schema.ts');
  });

  it('check loads the config, not the renderer, the workbook, the store drivers or the senders', async () => {
    const { stdout, packages, sources } = await loads(['check', '--config', 'config/reportd.example.yaml']);
    expect(stdout).toContain('config/reportd.example.yaml: valid');
    // The recorder sees what check does need.
    expect(packages).toContain('zod');
    expect(packages).toContain('yaml');
    expect(sources).toContain('src/config/load.ts');
    expect([...packages].filter((name) => HEAVY.includes(name))).toEqual([]);
    // Nor what this config does not need: it names no template folder (the built-in templates are
    // checked by the suite) and no allowed host name to judge against the Public Suffix List.
    expect(sources).not.toContain('src/report/check/templates-check.ts');
    expect(packages).not.toContain('tldts');
  });

  it('check loads no Node.js built-in its config does not call for: no crypto, no resolver, no child processes', async () => {
    // Loading node:crypto costs `check` about 10 ms of its start: only a recipient table's row ids
    // and the status page's credentials hash, and neither is in this config. The resolver is for a
    // channel URL's host, and this config names no channel. child_process (a few ms more, with net
    // and dgram) is for fontconfig, asked only about a theme's font, and commander's executable
    // subcommands, which reportd has none of (scripts/build-cli.ts).
    const { stdout, builtins } = await loads(['check', '--config', 'config/reportd.example.yaml']);
    expect(stdout).toContain('config/reportd.example.yaml: valid');
    // The recorder sees what check does load.
    expect(builtins).toContain('fs');
    expect([...builtins].filter((name) => /^(crypto|dns|child_process)/.test(name))).toEqual([]);
  });

  it('check of a config all in UTC asks ICU for no time zone', async () => {
    // The first zone an Intl.DateTimeFormat is built for loads ICU's zone data, tens of ms of
    // check's start; UTC, the default zone, needs none (config/cron.ts, schedule/lifecycle.ts).
    const config = join(tmp.dir, 'utc.yaml');
    writeFileSync(
      config,
      readFileSync(join(ROOT, 'config', 'reportd.example.yaml'), 'utf8').replaceAll('Europe/Berlin', 'UTC'),
    );
    const zoneLog = join(tmp.dir, 'zones.txt');
    writeFileSync(zoneLog, '');
    const { stdout } = await loads(['check', '--config', config], { REPORTD_TEST_ZONE_LOG: zoneLog });
    expect(stdout).toContain('utc.yaml: valid');
    expect(stdout).toContain('report weekly-executive: "0 8 * * 1" UTC');
    expect(readFileSync(zoneLog, 'utf8').split('\n').filter(Boolean)).toEqual([]);
  });

  it('check parses what it runs and little else: no template compiler, a minified bundle, `require` built only where named', async () => {
    const { files, chunks } = await loads(['check', '--config', 'config/reportd.example.yaml']);
    // A subject template is parsed, never compiled (config/subject-template.ts).
    expect([...files].filter((file) => file.includes('handlebars/compiler/parser.js'))).toHaveLength(1);
    expect(
      [...files].filter((file) => /handlebars\/(runtime|compiler\/(javascript-)?compiler)\.js/.test(file)),
    ).toEqual([]);
    // Node compiles every byte it loads: about 0.72 MB now, 1.2 MB unminified with the compiler.
    // Each file of the bundle is found, read and linked on its own: check's work is one import
    // (cli/check-run.ts), so it loads 35 of them, not the 45 separate imports made.
    expect(chunks.size).toBeLessThanOrEqual(38);
    const texts = [...chunks].map((file) => readFileSync(join(ROOT, file), 'utf8'));
    const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    expect(bytes, `check loads ${bytes} bytes of the bundle`).toBeLessThan(800_000);
    // esbuild's `__require` is in one chunk, and the banner making `require` stays only where a chunk
    // names it (that one, and theme/svg-logo.ts's child program, in a string): one in every chunk
    // would cost a few ms at start.
    const banners = texts.filter((text) => text.includes('__reportdRequire(import.meta.url)'));
    expect(banners.length, `${banners.length} of ${texts.length} chunks build a require`).toBeLessThanOrEqual(
      2,
    );
  });

  describe('on a SQLite store', () => {
    beforeAll(async () => {
      await seedStore(join(tmp.dir, 'store.sqlite'), [
        fixtureSnapshot({ id: 1, runId: 4826, run: 'W46 2026' }),
      ]);
      writeFileSync(
        join(tmp.dir, 'reportd.yaml'),
        seededStoreConfig(
          'smtp:',
          '  url: smtp://127.0.0.1:1',
          '  from: reportd <reports@example.com>',
          'reports:',
          '  - name: weekly',
          '    formats: [html]',
          "    schedule: { cron: '0 8 * * 1' }",
          '    email:',
          '      to: [cmo@example.com]',
        ),
      );
    });

    it('render --format html loads no PostgreSQL driver, no workbook, no browser and no image decoder', async () => {
      // pg (with undici) was evaluated by every command on a SQLite store; the logo decoders by every
      // render, logo or not; both are loaded now where they are used (store/db.ts, theme/logo.ts).
      const out = join(tmp.dir, 'html');
      const { stdout, packages } = await loads(
        ['render', '--config', 'reportd.yaml', '--set', '101', '--format', 'html', '--out', out],
        {},
        tmp.dir,
      );
      expect(stdout).toContain(out);
      expect(packages).toContain('better-sqlite3');
      expect(packages).toContain('handlebars');
      const unused = ['pg', 'undici', 'exceljs', 'puppeteer-core', 'pngjs', 'jpeg-js', 'saxes'];
      expect([...packages].filter((name) => unused.includes(name))).toEqual([]);
    });

    it('an email-only deliver without a logo loads neither the S3 nor the SFTP client, nor an image decoder', async () => {
      // The storage channels' clients are loaded at their first call (delivery/destinations/storage).
      const eml = join(tmp.dir, 'weekly.eml');
      const { stdout, packages } = await loads(
        ['deliver', '--config', 'reportd.yaml', '--report', 'weekly', '--eml', eml],
        {},
        tmp.dir,
      );
      expect(stdout).toContain(eml);
      expect(packages).toContain('nodemailer');
      const unused = [
        '@aws-sdk/client-s3',
        '@aws-sdk/s3-request-presigner',
        'ssh2-sftp-client',
        'ssh2',
        'pg',
        // Nor, without a logo, the image decoders that scale one for the email (compose/email-logo.ts).
        'pngjs',
        'jpeg-js',
        'saxes',
      ];
      expect([...packages].filter((name) => unused.includes(name))).toEqual([]);
    });
  });

  it('sync loads no S3 or SFTP client while no storage channel writes', async () => {
    const config = join(tmp.dir, 'storage-channels.yaml');
    writeFileSync(
      config,
      [
        'accounts:',
        '  - { name: main, base_url: "http://127.0.0.1:1/v2/integration", api_key: k, api_secret: s }',
        `store: { path: ${JSON.stringify(join(tmp.dir, 'synced.sqlite'))} }`,
        'channels:',
        '  - { name: archive, type: s3, bucket: reports }',
        '  - { name: drop, type: sftp, host: sftp.example.com, username: u, password_env: SFTP_PASSWORD,',
        '      host_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHGqpsmC2zVqK3G5uVYpJ2Y8jvWnS0vN1yMfQ0bq9x1E", path: up }',
        '',
      ].join('\n'),
    );
    const { packages, files } = await loads(
      ['sync', '--config', config, '--no-progress'],
      { SFTP_PASSWORD: 'p' },
      ROOT,
      1,
    );
    expect(packages).toContain('better-sqlite3');
    expect(packages).toContain('undici');
    expect(packages).not.toContain('@aws-sdk/client-s3');
    expect(packages).not.toContain('ssh2-sftp-client');
    expect(files).not.toContain('src/delivery/destinations/storage/s3-store.ts');

    // The store that sync made: \`history\` reads it and writes no log line, so it loads no logger.
    const history = await loads(['history', '--config', config]);
    expect(history.stdout).toContain('Incidents');
    expect(history.packages).toContain('better-sqlite3');
    expect(history.packages).not.toContain('pino');
  });
});
