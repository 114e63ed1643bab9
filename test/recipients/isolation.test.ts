import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { listOpenIncidents } from '../../src/notify/incidents.js';
import { IncidentWatch } from '../../src/notify/watch.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { statusView } from '../../src/status/page.js';
import { openStore } from '../../src/store/db.js';
import { type ChannelPeers, startChannelPeers } from '../delivery/channel-peers.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';
import { setEnv } from '../helpers/env.js';
import { storeLine } from '../helpers/postgres.js';

/**
 * The isolation guarantee, measured: two accounts on two sandbox servers (companies with distinct
 * brand and set names), one report with a table of 200 readers over 20 slices in 3 locales, 3 time
 * zones and 2 themes: 180 readers by email (one of them refused with 550 by the SMTP server) and 20
 * by a signed webhook that carries the files. Sent with the built CLI; every message and post is read
 * back (subject, plain text, HTML, the PDF through pdftotext, the workbook's cells and sheet names
 * through ExcelJS, the webhook's JSON): no reader gets a brand or set name from outside their slice,
 * and each gets their own. Identical attachments are read once (the 20 renders are shared by rows).
 */

const SETS_A = [101, 102, 201, 301];
const SETS_B = [1101, 1102, 1201, 1301];
const SET_NAME: Record<number, string> = {
  101: 'Northwind — Core buying journeys',
  102: 'Northwind — Office & wholesale',
  201: 'Lumen Tea — Everyday tea',
  301: 'Northwind — Panel 1',
};
const BRAND_OF: Record<number, string> = {
  101: 'Northwind Coffee',
  102: 'Northwind Coffee',
  201: 'Lumen Tea',
  301: 'Northwind Coffee',
};
/** Company 2's names are company 1's with " #2" after them (src/sandbox/dataset/companies.ts). */
const base = (id: number) => id % 1000;
const setName = (id: number) => SET_NAME[base(id)]! + (id > 1000 ? ' #2' : '');
const brandName = (id: number) => BRAND_OF[base(id)]! + (id > 1000 ? ' #2' : '');
const LOCALES = ['en-US', 'de-DE', 'fr-FR'];
const ZONES = ['Asia/Tokyo', 'Europe/Berlin', 'America/New_York'];
const REFUSED = 'gone@bounce.test';
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** The 20 slices: each account's four single sets and six pairs. */
function slices(): { account: string; sets: number[] }[] {
  const out: { account: string; sets: number[] }[] = [];
  for (const [account, sets] of [
    ['north', SETS_A],
    ['south', SETS_B],
  ] as const) {
    for (const id of sets) out.push({ account, sets: [id] });
    for (let i = 0; i < sets.length; i++)
      for (let j = i + 1; j < sets.length; j++) out.push({ account, sets: [sets[i]!, sets[j]!] });
  }
  return out;
}

interface Row {
  email?: string;
  channel?: string;
  name: string;
  account: string;
  sets: number[];
  locale: string;
  zone: string;
  theme: string;
}

/** 200 readers, 10 per slice: nine by email, one by the webhook; reader 0's address is refused (550). */
function table(): Row[] {
  const rows: Row[] = [];
  slices().forEach((slice, s) => {
    for (let k = 0; k < 10; k++) {
      const n = rows.length;
      rows.push({
        ...(k === 9 ? { channel: 'ops' } : { email: n === 0 ? REFUSED : `reader${n}@client${s}.example` }),
        name: `Reader ${n}`,
        ...slice,
        locale: LOCALES[s % 3]!,
        zone: ZONES[n % 3]!,
        theme: s % 2 ? 'meadow' : 'harbour',
      });
    }
  });
  return rows;
}

/**
 * Every name from outside the slice that appears in `text`. Company 2's names are company 1's plus
 * " #2", so they are taken out of the text before company 1's are looked for.
 */
function leaks(text: string, row: Pick<Row, 'sets'>): string[] {
  const own = new Set(row.sets.flatMap((id) => [setName(id), brandName(id)]));
  const found = new Set<string>();
  const company2 = SETS_B.flatMap((id) => [setName(id), brandName(id)]);
  for (const name of company2) if (!own.has(name) && text.includes(name)) found.add(name);
  const rest = company2.reduce((t, name) => t.split(name).join(' '), text);
  for (const id of SETS_A) {
    for (const name of [setName(id), brandName(id)]) {
      // A document may cut its own " #2" name short (a sheet name, a narrow column): not a leak.
      const cutOwn = own.has(`${name} #2`);
      if (!own.has(name) && !cutOwn && rest.includes(name)) found.add(name);
    }
  }
  return [...found];
}

/**
 * A real SMTP server that keeps each message's bytes and answers at once, and refuses
 * `@bounce.test` with 550: parsing 180 messages with their attachments happens after the send, so
 * the sender never waits on the reader (test/delivery/smtp-helpers.ts parses before it answers).
 */
interface RawSmtp {
  url: string;
  raw: { envelope: string[]; bytes: Buffer }[];
  close(): Promise<void>;
}

async function startRawSmtp(): Promise<RawSmtp> {
  const raw: RawSmtp['raw'] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!address.address.endsWith('@bounce.test')) return callback();
      const error = new Error(`No such user ${address.address}`) as Error & { responseCode: number };
      error.responseCode = 550;
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        raw.push({ envelope: session.envelope.rcptTo.map((a) => a.address), bytes: Buffer.concat(chunks) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    raw,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let dir: string;
let restoreEnv: (() => void) | undefined;
let cleanup: () => void;
let north: Sandbox;
let south: Sandbox;
let smtp: RawSmtp;
let peers: ChannelPeers;
let rows: Row[];
let config: string;

beforeAll(async () => {
  const tmp = tempDir();
  cleanup = tmp.cleanup;
  dir = realpathSync(tmp.dir);
  // No rate limit worth the name: the test measures isolation, not the budget's waits.
  const rate = { requests: 100_000, windowMs: 60_000 };
  [north, south, smtp, peers] = await Promise.all([
    startSandbox({ extraSets: 1, rate }),
    startSandbox({ companies: 2, extraSets: 1, rate }),
    startRawSmtp(),
    startChannelPeers(),
  ]);
  // The config names the webhook's secret by variable: loadConfig here reads it as the CLI does.
  restoreEnv = setEnv({ WEBHOOK_SECRET });
  rows = table();
  const csv = [
    'email,channel,name,account,query_sets,locale,timezone,theme',
    ...rows.map((r) =>
      [r.email ?? '', r.channel ?? '', r.name, r.account, r.sets.join(' '), r.locale, r.zone, r.theme].join(
        ',',
      ),
    ),
  ];
  writeFileSync(join(dir, 'readers.csv'), `${csv.join('\n')}\n`);
  const southKey = south.credentials(2);
  const limit = 'rate_limit: { requests: 100000 }';
  config = join(dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: north, base_url: "${north.baseUrl}", api_key: ${north.apiKey}, api_secret: ${north.apiSecret}, ${limit} }
  - { name: south, base_url: "${south.baseUrl}", api_key: ${southKey.apiKey}, api_secret: ${southKey.apiSecret}, ${limit} }
${await storeLine(join(dir, 'reportd.sqlite'))}
sync: { backfill_runs: 1 }
smtp: { url: "${smtp.url}", from: "Agency <reports@agency.example>" }
channels:
  - { name: ops, type: webhook, url: "${peers.url}/hook", secret: "\${WEBHOOK_SECRET}", include_files: true, allow_private_network: true }
themes:
  harbour: { primary: "#1F4E79", footer: "Harbour Agency" }
  meadow: { primary: "#2E6B3A", footer: "Meadow Agency" }
reports:
  - name: clients
    detail: summary
    formats: [pdf, xlsx]
    schedule: { cron: "0 8 * * 1", timezone: recipient }
    email: { subject: "{{recipient.name}}: {{brand}} — {{period}}" }
    recipients: readers.csv
    notify_on_failure: { email: [ops@agency.example] }
log: { level: info }
`,
  );
}, 120_000);

afterAll(async () => {
  restoreEnv?.();
  await smtp?.close();
  await peers?.close();
  await north?.close();
  await south?.close();
  cleanup?.();
});

const reportd = (...args: string[]) =>
  runCli([...args, '--config', config], {
    cwd: dir,
    env: { REPORTD_LOG_LEVEL: 'info', WEBHOOK_SECRET },
  });

/** A file read back: its bytes' hash and its text. */
interface ReadFile {
  hash: string;
  text: string;
}

/** Each distinct file read once (identical bytes read back identically): its text. */
const readBack = new Map<string, Promise<string>>();
async function fileText(name: string, content: Buffer): Promise<ReadFile> {
  const hash = createHash('sha256').update(content).digest('hex');
  let text = readBack.get(hash);
  if (!text) {
    text = name.endsWith('.pdf') ? Promise.resolve(pdfText(content, hash)) : workbookText(content);
    readBack.set(hash, text);
  }
  return { hash, text: await text };
}

/** `leaks` of one file for one slice, looked for once (a document is shared by the rows of a slice). */
const fileLeaks = new Map<string, string[]>();
function leaksOfFile(file: ReadFile, row: Pick<Row, 'sets'>): string[] {
  const key = `${file.hash} ${row.sets.join(' ')}`;
  let found = fileLeaks.get(key);
  if (!found) {
    found = leaks(file.text, row);
    fileLeaks.set(key, found);
  }
  return found;
}

function pdfText(content: Buffer, hash: string): string {
  const file = join(dir, `${hash}.pdf`);
  writeFileSync(file, content);
  return execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
}

async function workbookText(content: Buffer): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(content as unknown as ArrayBuffer);
  const parts: string[] = [];
  workbook.eachSheet((sheet) => {
    parts.push(sheet.name);
    sheet.eachRow((row) => row.eachCell((cell) => parts.push(cell.text)));
  });
  return parts.join('\n');
}

const decode = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ');

/** What one reader received: every text of it, and the PDF's text alone. */
interface Received {
  /** Subject, text, HTML, file names, the post's JSON: what differs per reader. */
  own: string;
  files: ReadFile[];
  pdf: string;
}

async function emailReceived(message: ParsedMail): Promise<Received> {
  const files = message.attachments.filter((a) => /\.(pdf|xlsx)$/.test(a.filename ?? ''));
  expect(files.map((f) => f.filename?.split('.').pop()).sort()).toEqual(['pdf', 'xlsx']);
  // File names are the reader's too (they carry the reader's name): read them as text.
  const names = files.map((file) => file.filename ?? '');
  const own = [message.subject ?? '', message.text ?? '', decode(String(message.html)), ...names].join('\n');
  const read = await Promise.all(files.map((file) => fileText(file.filename!, file.content)));
  return { own, files: read, pdf: read[names.findIndex((name) => name.endsWith('.pdf'))]!.text };
}

interface HookFile {
  name: string;
  content_base64: string;
}

async function postReceived(body: Record<string, unknown>): Promise<Received> {
  const data = body.data as { files: HookFile[] };
  const files = data.files.filter((f) => /\.(pdf|xlsx)$/.test(f.name));
  expect(files.map((f) => f.name.split('.').pop()).sort()).toEqual(['pdf', 'xlsx']);
  const own = JSON.stringify({ ...data, files: files.map((f) => f.name) });
  const read = await Promise.all(
    files.map((file) => fileText(file.name, Buffer.from(file.content_base64, 'base64'))),
  );
  return { own, files: read, pdf: read[files.findIndex((f) => f.name.endsWith('.pdf'))]!.text };
}

describe('a recipient table over two accounts', () => {
  it('gives each of 200 readers one message or post built from their slice only, with 20 renders, and fails the refused address alone', async () => {
    const t0 = Date.now();
    const synced = await reportd('sync');
    console.log('sync ms', Date.now() - t0);
    expect(synced.code, synced.stderr.slice(-2000)).toBe(0);
    const sent = await reportd('deliver', '--report', 'clients');
    console.log('deliver ms', Date.now() - t0);
    // The refused reader makes the command fail; it is named, and nobody else is.
    expect(sent.code).not.toBe(0);
    expect(sent.stderr).toContain(REFUSED);
    expect(sent.stderr).toContain('Reader 0');
    expect(sent.stderr.match(/@client\d+\.example/g) ?? []).toEqual([]);
    const renders = sent.stderr
      .split('\n')
      .filter((line) => line.includes('document rendered for recipients'));
    expect(renders).toHaveLength(20);

    // Who got what: each email row exactly one message, each webhook row exactly one post.
    expect(smtp.raw).toHaveLength(179);
    const byAddress = new Map<string, ParsedMail[]>();
    for (const { envelope, bytes } of smtp.raw) {
      const message = await simpleParser(bytes);
      for (const address of envelope) byAddress.set(address, [...(byAddress.get(address) ?? []), message]);
    }
    expect(byAddress.has(REFUSED)).toBe(false);
    const posts = peers.accepted('hook');
    expect(posts).toHaveLength(20);
    // A post is the reader's by its webhook-id: the id of the reader's own outbox row.
    const { store: where, reports } = loadConfig(config);
    const loaded = reports[0]!.recipients!;
    const store = await openStore(where, { mustExist: true });
    const deliveries = await listDeliveries(store, 1000).finally(() => store.close());
    const destinationOfPost = new Map(deliveries.map((d) => [d.messageId, d.destination]));

    let read = 0;
    const leaking: string[] = [];
    const check = (row: Row, got: Received) => {
      read++;
      const leaked = new Set([
        ...leaks(got.own, row),
        ...got.files.flatMap((file) => leaksOfFile(file, row)),
      ]);
      if (leaked.size > 0) leaking.push(`${row.name}: ${[...leaked].join(', ')}`);
      for (const id of row.sets) expect(got.pdf, `${row.name}'s PDF names set ${id}`).toContain(setName(id));
      expect(`${got.own}\n${got.pdf}`, `${row.name}'s own brand`).toContain(brandName(row.sets[0]!));
    };
    for (const [i, row] of rows.entries()) {
      if (row.email === REFUSED) continue;
      if (row.email) {
        const messages = byAddress.get(row.email) ?? [];
        expect(messages, row.email).toHaveLength(1);
        expect(messages[0]!.subject).toContain(`${row.name}:`);
        check(row, await emailReceived(messages[0]!));
        continue;
      }
      const destination = `recipient:${loaded[i]!.id}`;
      const mine = posts.filter(
        (p) => destinationOfPost.get(String(p.headers['webhook-id'])) === destination,
      );
      expect(mine, `${row.name}'s post`).toHaveLength(1);
      check(row, await postReceived(mine[0]!.fields));
    }
    console.log('read ms', Date.now() - t0);
    expect(read).toBe(199);
    expect(leaking.length, leaking.slice(0, 5).join('\n')).toBe(0);
  }, 300_000);

  it('names the refused reader, and only them, in history, the status page and the failure notice', async () => {
    const history = await reportd('history', '--limit', '500');
    expect(history.code, history.stderr).toBe(0);
    const failed = history.stdout.split('\n').filter((line) => /^\s+\S+\s+failed\s/.test(line));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toContain('clients for reader Reader 0 <gone@bounce.test> (readers.csv line 2)');
    expect(history.stdout.match(/ for reader Reader \d+ /g)).toHaveLength(200);
    // One reader's own rows, found by their address in any case, by their channel, by the report.
    const of = async (...args: string[]) => {
      const run = await reportd('history', '--json', '--limit', '500', ...args);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout).deliveries as { reader?: string; state: string; report: string }[];
    };
    expect(await of('--reader', 'READER13@client1.example')).toEqual([
      expect.objectContaining({
        reader: 'reader Reader 13 <reader13@client1.example> (readers.csv line 15)',
      }),
    ]);
    expect(await of('--reader', REFUSED)).toEqual([
      expect.objectContaining({ reader: expect.stringContaining(`<${REFUSED}>`), state: 'failed' }),
    ]);
    const byChannel = await of('--reader', 'ops');
    expect(byChannel).toHaveLength(20);
    for (const d of byChannel) expect(d.reader).toMatch(/^reader Reader \d*9 <channel ops> /);
    expect(await of('--reader', 'nobody@client1.example')).toEqual([]);
    expect(await of('--report', 'clients')).toHaveLength(200);
    expect(await of('--report', 'someone-else')).toEqual([]);

    // What a cron install runs: `deliver --pending` opens the one reader's incident (as the daemon's
    // worker does after each drain) and sends its notice in the same run, to the operators only.
    const before = smtp.raw.length;
    const notice = await reportd('deliver', '--pending');
    expect(notice.code, notice.stderr).toBe(0);
    expect(notice.stdout).toContain('sent: 1 failure notice(s)');
    expect(smtp.raw.length).toBe(before + 1);
    const mail = await simpleParser(smtp.raw.at(-1)!.bytes);
    expect(smtp.raw.at(-1)!.envelope).toEqual(['ops@agency.example']);
    expect(mail.text).toContain('Reader 0 <gone@bounce.test> (readers.csv line 2)');
    expect(mail.text).not.toMatch(/Reader [1-9]/);

    const loaded = loadConfig(config);
    const store = await openStore(loaded.store);
    try {
      const page = await statusView({ config: loaded, store, now: Date.now() });
      expect(page.reports[0]!.readers).toEqual({
        summary: '200 readers: 199 sent, 1 failed, 0 not sent yet',
        failed: [
          expect.stringMatching(/^reader Reader 0 <gone@bounce\.test> \(readers\.csv line 2\): .*550/),
        ],
      });
      expect((await listOpenIncidents(store)).map((i) => i.detail)).toEqual([
        expect.stringMatching(
          /^report clients for reader Reader 0 <gone@bounce\.test> \(readers\.csv line 2\): could not be delivered: .*550/,
        ),
      ]);
      // The daemon's worker, after its next drain, finds nothing new to open or clear.
      const watch = new IncidentWatch({
        config: loaded,
        store,
        clock: systemClock,
        logger: createLogger({ level: 'silent' }),
      });
      expect(await watch.reconcileDeliveries()).toBe(false);
    } finally {
      await store.close();
    }
    // A second cron run: nothing due, no second notice.
    const again = await reportd('deliver', '--pending');
    expect(again.code, again.stderr).toBe(0);
    expect(smtp.raw.length).toBe(before + 1);
  }, 300_000);
});
