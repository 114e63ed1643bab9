import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import ExcelJS from 'exceljs';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { type Rewrite, startStandIn, type UpstreamGet } from '../helpers/stand-in.js';
import { startSyncEnv } from '../sync/helpers/sync-env.js';

type Row = Record<string, string | undefined>;

/** The export's CSV as rows by header (RFC 4180 quotes: labels may hold commas and quotes). */
function parseCsv(text: string): Row[] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    record.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (quoted) field += c;
    else if (c === ',') endField();
    else if (c === '\n') {
      endField();
      records.push(record);
      record = [];
    } else if (c !== '\r') field += c;
  }
  if (field || record.length) {
    endField();
    records.push(record);
  }
  const [header, ...rest] = records;
  return rest
    .filter((r) => r.length > 1)
    .map((r) => Object.fromEntries(header!.map((h, k) => [h, r[k] === '' ? undefined : r[k]])));
}

/** A change in points as the en-US documents print it: "±0.0", "−10.0", "+2.1". */
function points(value: number): string {
  const text = Math.abs(value).toFixed(1);
  if (Number(text) === 0) return '±0.0';
  return `${value < 0 ? '−' : '+'}${text}`;
}

/** An interval as the documents print it: "−14.7 to +14.7 pts" (a bound that rounds to 0 unsigned). */
function interval(row: Row): string {
  const bound = (v: number) => (Number(Math.abs(v).toFixed(1)) === 0 ? Math.abs(v).toFixed(1) : points(v));
  return `${bound(Number(row.interval_low))} to ${bound(Number(row.interval_high))} pts`;
}

type ByEngine = {
  engines: { id: number; label: string }[];
  presenceByEngine: Record<string, { weighted: number; gross: number; delta: number }>;
};

/**
 * A stand-in that reads the spec the other way: in the newest run of set 101 every engine's gross
 * presence falls 10 points while its weighted presence stays exactly as it was, and `delta` is the
 * GROSS change (or, in the second world, the weighted change, 0). Whatever the field says, every
 * surface shows and judges the stored runs' difference: no likely weighted change anywhere.
 */
function byEngineRewrite(deltaOf: 'gross' | 'weighted') {
  return async (request: { path: string; query: URLSearchParams }, body: unknown, get: UpstreamGet) => {
    const match = /^\/presence\/sets\/(\d+)\/by-engine$/.exec(request.path);
    if (!match) return body;
    const runs = (await get(`/sets/${match[1]}/runs`)) as { id: number }[];
    const ids = runs.map((run) => run.id).sort((a, b) => a - b);
    const asked = Number(request.query.get('end_run_id') ?? ids.at(-1));
    // Only the newest run moves; every earlier answer is the sandbox's own.
    if (asked !== ids.at(-1) || ids.length < 2) return body;
    const before = (await get(`/presence/sets/${match[1]}/by-engine?end_run_id=${ids.at(-2)}`)) as ByEngine;
    const now = body as ByEngine;
    for (const [id, was] of Object.entries(before.presenceByEngine)) {
      const gross = Math.max(0, Number((was.gross - 10).toFixed(2)));
      now.presenceByEngine[id] = {
        weighted: was.weighted,
        gross,
        delta: deltaOf === 'gross' ? Number((gross - was.gross).toFixed(2)) : 0,
      };
    }
    return now;
  };
}

/** Runs the built CLI, which must succeed (its stderr is the message when it does not). */
async function reportd(...args: string[]) {
  const result = await runCli(args);
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** A sandbox behind a stand-in, a config with `extra` appended, and one `reportd sync` through it. */
async function standInWorld(rewrite: Rewrite, extra: readonly string[]) {
  const env = await startSyncEnv({
    rate: { requests: 2000, windowMs: 1000 },
    sandbox: { quiet: true },
    settings: { query_sets: [101], backfill_runs: 2 },
    concurrency: 4,
  });
  const standIn = await startStandIn(env.sandbox.baseUrl, rewrite);
  env.account.base_url = standIn.baseUrl;
  const config = env.writeConfig();
  const out = join(env.dir, 'out');
  mkdirSync(out);
  appendFileSync(
    config,
    ['smtp: { url: "smtp://127.0.0.1:1", from: "Reports <reports@example.com>" }', ...extra, ''].join('\n'),
  );
  const sync = await reportd('sync', '--config', config, '--no-progress');
  const close = async () => {
    await standIn.close();
    await env.close();
  };
  return { config, out, syncStderr: sync.stderr, close };
}

describe.each(['gross', 'weighted'] as const)(
  'by-engine delta as the %s change: one verdict per figure on every surface',
  (deltaOf) => {
    let config: string;
    let out: string;
    let syncStderr: string;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ config, out, syncStderr, close } = await standInWorld(byEngineRewrite(deltaOf), [
        'reports:',
        '  - name: weekly',
        '    query_sets: [101]',
        '    mode: per_set',
        '    formats: [pdf, xlsx]',
        '    schedule: { cron: "0 8 * * 1" }',
        '    email: { to: [cmo@example.com] }',
      ]));
      // The PDF and workbook read below are the ones the email carries: `deliver --eml` renders both
      // (a `render` beside it printed the same documents again in a Chromium of its own).
      await reportd('deliver', '--config', config, '--report', 'weekly', '--eml', join(out, 'weekly.eml'));
      const mail = await simpleParser(readFileSync(join(out, 'weekly.eml')));
      expect(mail.attachments.map((a) => a.contentType).sort()).toEqual([
        'application/pdf',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      ]);
      for (const attachment of mail.attachments)
        writeFileSync(join(out, attachment.filename!), attachment.content);
      await reportd('export', '--config', config, '--format', 'csv', '--out', join(out, 'csv'));
    }, 240_000);

    afterAll(() => close?.());

    /** The report's PDF as pdftotext reads it, columns kept. */
    function pdfText(): string {
      const pdf = readdirSync(out).find((f) => f.endsWith('.pdf'))!;
      return execFileSync('pdftotext', ['-layout', join(out, pdf), '-'], { encoding: 'utf8' });
    }

    /** The export's rows of the newest run: the figures every other surface must match. */
    function exportedNewest(): Row[] {
      const rows = parseCsv(readFileSync(join(out, 'csv', 'metric_changes.csv'), 'utf8'));
      const newest = Math.max(...rows.map((row) => Number(row.run_id)));
      return rows.filter((row) => Number(row.run_id) === newest);
    }

    /** Its by-engine presence rows. */
    function exportedByEngine(): Row[] {
      return exportedNewest().filter((row) => row.endpoint === 'presence.by-engine');
    }

    it('says once in the sync what the service sent differently, and only then', () => {
      const lines = syncStderr.split('\n').filter((line) => /disagrees with the difference/.test(line));
      if (deltaOf === 'gross') {
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          /for 5 figure\(s\) \(e\.g\. presence\.by-engine delta \(engine \d+\) of run \d+ in query set 101: -10 against 0\)/,
        );
      } else expect(lines).toEqual([]);
    });

    it('judges the stored difference in the export: weighted unchanged and never likely, gross −10', () => {
      const rows = exportedByEngine();
      const weighted = rows.filter((row) => row.field === 'weighted');
      const gross = rows.filter((row) => row.field === 'gross');
      expect(weighted).toHaveLength(5);
      expect(gross).toHaveLength(5);
      for (const row of weighted) {
        expect(Number(row.change)).toBeCloseTo(0, 9);
        expect(row.significance).toBe('unclear');
      }
      for (const row of gross) expect(Number(row.change)).toBeCloseTo(-10, 6);
    });

    it('prints in the PDF, row by row, the change, interval and verdict the export has', () => {
      const text = pdfText();
      const table = text.slice(text.indexOf('Presence by engine'));
      const lines = table.slice(0, table.indexOf('Generated')).split('\n');
      for (const row of exportedByEngine().filter((r) => r.field === 'weighted')) {
        const line = lines.find((l) => l.trim().startsWith(row.dimension_label!))!;
        expect(line, row.label).toBeDefined();
        // Only a likely change carries an arrow: none here.
        expect(line).not.toMatch(/[▲▼]/u);
        expect(line).toContain(`${points(Number(row.change))} pts (${interval(row)})`);
      }
      // The story reads the same verdicts: it calls no engine's change likely.
      expect(text).toContain('No change by engine is a likely change.');
    });

    it('writes in the workbook the same change, interval and verdict for every engine', async () => {
      const file = readdirSync(out).find((f) => f.endsWith('.xlsx'))!;
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(join(out, file));
      const rows: string[][] = [];
      book.eachSheet((sheet) =>
        sheet.eachRow((row) =>
          rows.push((row.values as unknown[]).map((v) => (v === null || v === undefined ? '' : String(v)))),
        ),
      );
      for (const row of exportedByEngine().filter((r) => r.field === 'weighted')) {
        const found = rows.filter(
          (cells) => cells.includes(row.dimension_label!) && cells.includes(interval(row)),
        );
        expect(found.length, row.label).toBeGreaterThan(0);
        for (const cells of found) {
          expect(cells).toContain('no clear change');
          expect(cells).not.toContain('likely change');
        }
      }
    });

    it("answers through MCP compare_runs with the export's verdicts, whatever the prefix", async () => {
      const client = new Client({ name: 'one-verdict', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp', '--config', config],
          stderr: 'pipe',
        }),
      );
      try {
        // Every figure of the newest run, keyed as compare_runs names it: metric, breakdown, member.
        const want = new Map(
          exportedNewest().map((row) => [`${row.endpoint}.${row.field}|${row.dimension_label ?? ''}`, row]),
        );
        for (const prefix of [
          undefined,
          'presence.',
          'presence.by-engine',
          'presence.by-engine.weighted',
          'life.',
          'gravity.',
        ]) {
          const result = await client.callTool({
            name: 'compare_runs',
            arguments: { query_set_id: 101, limit: 100, ...(prefix ? { metric_prefix: prefix } : {}) },
          });
          expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
          // biome-ignore lint/suspicious/noExplicitAny: read loosely; the assertions say what matters.
          const answer = result.structuredContent as any;
          // The whole run's family, as the PDF states it ("78 changes judged together"), whatever the prefix.
          expect(`${answer.family.size} changes judged together`).toBe(
            /\d+ changes judged together/.exec(pdfText())![0],
          );
          for (const mover of answer.movers) {
            const row = want.get(`${mover.metric}|${mover.label ?? ''}`)!;
            expect(row, mover.title).toBeDefined();
            expect(mover.change).toBeCloseTo(Number(row.change), 9);
            expect(mover.significance).toBe(row.significance);
            if (row.q === undefined) expect(mover.q).toBeNull();
            else expect(mover.q).toBeCloseTo(Number(row.q), 9);
          }
          // Unchanged weighted figures are counted, never listed as movers with another change.
          expect(
            answer.movers.filter(
              (m: { metric: string; change: number }) =>
                m.metric === 'presence.by-engine.weighted' && m.change !== 0,
            ),
          ).toEqual([]);
        }
      } finally {
        await client.close();
      }
    });

    it('sends an email whose marks and story agree with the PDF', async () => {
      const mail = await simpleParser(readFileSync(join(out, 'weekly.eml')));
      for (const body of [mail.html as string, mail.text ?? '']) {
        expect(body).toContain('No change by engine is a likely change.');
        const stated = /(\d+) changes judged together; (\d+) likely/.exec(body.replace(/\s+/g, ' '));
        expect(stated).not.toBeNull();
        expect(body.match(/[▲▼]/gu) ?? []).toHaveLength(Number(stated![2]));
      }
    });
  },
);

/**
 * A stand-in that sends, in the newest run of set 101, values no unit allows: gross presence 150 %,
 * weighted presence −20 % and the brand's share of voice 10⁹ %.
 */
async function impossible(
  request: { path: string; query: URLSearchParams },
  body: unknown,
  get: UpstreamGet,
) {
  const set = /^\/(?:presence|home)\/sets\/(\d+)\//.exec(request.path)?.[1];
  if (!set) return body;
  const runs = (await get(`/sets/${set}/runs`)) as { id: number }[];
  const newest = Math.max(...runs.map((run) => run.id));
  if (Number(request.query.get('end_run_id') ?? newest) !== newest) return body;
  const card = body as { current?: number; shares?: { isBrand: boolean; share: number }[] };
  if (request.path.endsWith('/gross')) card.current = 150;
  if (request.path.endsWith('/weighted')) card.current = -20;
  if (request.path.endsWith('/competitive-context'))
    for (const share of card.shares ?? []) if (share.isBrand) share.share = 1e9;
  return card;
}

describe('values no unit allows: warned once each, shown as "—", never judged or alerted on', () => {
  let config: string;
  let out: string;
  let syncStderr: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ config, out, syncStderr, close } = await standInWorld(impossible, [
      'alerts:',
      '  - name: watch',
      '    query_sets: [101]',
      '    rules:',
      '      - { metric: presence.gross, change: ">= 5", significant: false }',
      '      - { metric: presence.weighted, value: "< 0" }',
      '      - { metric: presence.weighted, change: "<= -5", significant: false }',
      '    email: { to: [ops@example.com] }',
    ]));
    await reportd('render', '--config', config, '--set', '101', '--format', 'pdf', '--out', out);
    await reportd('export', '--config', config, '--format', 'csv', '--out', join(out, 'csv'));
  }, 240_000);

  afterAll(() => close?.());

  it('warns once per field in the sync, naming run, endpoint, field and value', () => {
    const lines = syncStderr.split('\n').filter((line) => /stored as sent, shown as/.test(line));
    const named = lines.map((line) =>
      /query set 101, run \d+: (\S+ \S+(?: \([^)]*\))?) = (\S+) is not/.exec(line)?.slice(1, 3).join(' = '),
    );
    expect(named.sort()).toEqual(
      [
        'presence.gross current = 150',
        'presence.weighted current = -20',
        expect.stringMatching(/^overview\.competitive-context share \(competitor .+\) = 1000000000$/),
      ].sort(),
    );
  });

  it('exports them as invalid and unjudged, while the rest of the run is judged', () => {
    const rows = parseCsv(readFileSync(join(out, 'csv', 'metric_changes.csv'), 'utf8'));
    const newest = Math.max(...rows.map((row) => Number(row.run_id)));
    const run = rows.filter((row) => Number(row.run_id) === newest);
    const of = (endpoint: string, field: string) =>
      run.find((r) => r.endpoint === endpoint && r.field === field && !r.dimension);
    for (const [endpoint, field] of [
      ['presence.gross', 'current'],
      ['presence.weighted', 'current'],
    ] as const) {
      expect(of(endpoint, field), `${endpoint} ${field}`).toMatchObject({
        significance: 'invalid',
        q: undefined,
        p: undefined,
      });
    }
    const judged = run.filter((r) => r.significance === 'likely' || r.significance === 'unclear');
    expect(judged.length).toBeGreaterThan(20);
  });

  it('shows "—" and says why in the PDF, and judges the rest', () => {
    const pdf = readdirSync(out).find((f) => f.endsWith('.pdf'))!;
    const text = execFileSync('pdftotext', [join(out, pdf), '-'], { encoding: 'utf8' });
    // The value the service sent is named in the note beside "—", nowhere else.
    expect(text).toMatch(/not a valid value: 150(\.0)?\s?%; not judged/);
    expect(text).toMatch(/not a valid value: [−-]20(\.0)?\s?%; not judged/);
    const besideNotes = text.replace(/\(not a valid value: [^)]*\)/g, '');
    expect(besideNotes).not.toMatch(/150(\.0)?\s?%/);
    expect(besideNotes).not.toMatch(/[−-]20(\.0)?\s?%/);
    expect(besideNotes).not.toMatch(/1[,.]?000[,.]?000[,.]?000/);
    expect(text).toMatch(/\d+ changes judged together/);
  });

  it('fires no alert on them', async () => {
    const alerts = await reportd('alerts', '--config', config, '--set', '101');
    expect(alerts.stdout).toContain('nothing fires');
    // Each rule says once why it read nothing: the value is not one its unit allows.
    const skipped = alerts.stdout.split('\n').filter((line) => /skipped rule/.test(line));
    expect(skipped.map((line) => line.trim())).toEqual([
      expect.stringMatching(
        /^skipped rule 0: presence\.gross\.current: 150 in run .+ is not a valid value; not alerted on$/,
      ),
      expect.stringMatching(
        /^skipped rule 1: presence\.weighted\.current: -20 in run .+ is not a valid value; not alerted on$/,
      ),
      expect.stringMatching(
        /^skipped rule 2: presence\.weighted\.current: -20 in run .+ is not a valid value; not alerted on$/,
      ),
    ]);
  });
});
