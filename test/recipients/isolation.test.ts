import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';

/**
 * The isolation guarantee, measured: two accounts on two sandbox servers (companies with distinct
 * brand and set names), one report with a table of 200 readers over 20 slices in 3 locales, 3 time
 * zones and 2 themes, sent with the built CLI to a real SMTP server. Every message is read back (subject,
 * text, HTML, the PDF through pdftotext, the workbook's cells and sheet names through ExcelJS): no
 * reader gets a brand or a set name from outside their slice, and each gets their own.
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
  email: string;
  name: string;
  account: string;
  sets: number[];
  locale: string;
  zone: string;
}

/** 200 readers, 10 per slice; reader 0's address is refused by the server (550). */
function table(): Row[] {
  const rows: Row[] = [];
  slices().forEach((slice, s) => {
    for (let k = 0; k < 10; k++) {
      const n = rows.length;
      rows.push({
        email: n === 0 ? 'gone@bounce.test' : `reader${n}@client${s}.example`,
        name: `Reader ${n}`,
        ...slice,
        locale: LOCALES[s % 3]!,
        zone: ZONES[n % 3]!,
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

let dir: string;
let cleanup: () => void;
let north: Sandbox;
let south: Sandbox;
let smtp: TestSmtp;
let rows: Row[];
let config: string;

beforeAll(async () => {
  const tmp = tempDir();
  cleanup = tmp.cleanup;
  dir = realpathSync(tmp.dir);
  north = await startSandbox({ extraSets: 1 });
  south = await startSandbox({ companies: 2, extraSets: 1 });
  smtp = await startSmtp();
  rows = table();
  const csv = [
    'email,name,account,query_sets,locale,timezone,theme',
    ...rows.map((r, i) =>
      [
        r.email,
        r.name,
        r.account,
        r.sets.join(' '),
        r.locale,
        r.zone,
        Math.floor(i / 10) % 2 ? 'meadow' : 'harbour',
      ].join(','),
    ),
  ];
  writeFileSync(join(dir, 'readers.csv'), `${csv.join('\n')}\n`);
  const southKey = south.credentials(2);
  config = join(dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: north, base_url: "${north.baseUrl}", api_key: ${north.apiKey}, api_secret: ${north.apiSecret} }
  - { name: south, base_url: "${south.baseUrl}", api_key: ${southKey.apiKey}, api_secret: ${southKey.apiSecret} }
sync: { backfill_runs: 2 }
smtp: { url: "${smtp.url}", from: "Agency <reports@agency.example>" }
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
log: { level: info }
`,
  );
}, 120_000);

afterAll(async () => {
  await smtp?.close();
  await north?.close();
  await south?.close();
  cleanup?.();
});

const reportd = (...args: string[]) =>
  runCli([...args, '--config', config], { cwd: dir, env: { REPORTD_LOG_LEVEL: 'info' } });

/** Each distinct attachment read once (identical bytes read back identically): its text. */
const readBack = new Map<string, Promise<string>>();
function attachmentText(attachment: ParsedMail['attachments'][number]): Promise<string> {
  const hash = createHash('sha256').update(attachment.content).digest('hex');
  let text = readBack.get(hash);
  if (!text) {
    text = attachment.filename?.endsWith('.pdf')
      ? Promise.resolve(pdfText(attachment.content, hash))
      : workbookText(attachment.content);
    readBack.set(hash, text);
  }
  return text;
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

describe('a recipient table over two accounts', () => {
  it('gives each of 200 readers one message built from their slice only, with 20 renders, and fails the refused address alone', async () => {
    const synced = await reportd('sync');
    expect(synced.code, synced.stderr.slice(-2000)).toBe(0);
    const sent = await reportd('deliver', '--report', 'clients');
    // The refused reader makes the command fail; it is named, and nobody else is.
    expect(sent.code).not.toBe(0);
    expect(sent.stderr).toContain('gone@bounce.test');
    const renders = sent.stderr
      .split('\n')
      .filter((line) => line.includes('document rendered for recipients'));
    expect(renders.length).toBeLessThanOrEqual(20);
    expect(renders.length).toBe(20);

    expect(smtp.messages).toHaveLength(199);
    const byAddress = new Map<string, ParsedMail[]>();
    smtp.envelopes.forEach((envelope, i) => {
      for (const address of envelope)
        byAddress.set(address, [...(byAddress.get(address) ?? []), smtp.messages[i]!]);
    });
    const leaking: string[] = [];
    for (const row of rows.slice(1)) {
      const messages = byAddress.get(row.email) ?? [];
      expect(messages, row.email).toHaveLength(1);
      const message = messages[0]!;
      expect(message.subject).toContain(`${row.name}:`);
      const texts = [message.subject ?? '', message.text ?? '', decode(String(message.html))];
      const files = message.attachments.filter((a) => /\.(pdf|xlsx)$/.test(a.filename ?? ''));
      expect(files.map((f) => f.filename?.split('.').pop()).sort()).toEqual(['pdf', 'xlsx']);
      for (const file of files) texts.push(await attachmentText(file));
      const all = texts.join('\n');
      const leaked = leaks(all, row);
      if (leaked.length > 0) leaking.push(`${row.email}: ${leaked.join(', ')}`);
      const pdf = await attachmentText(files.find((f) => f.filename?.endsWith('.pdf'))!);
      for (const id of row.sets) expect(pdf, `${row.email} PDF names set ${id}`).toContain(setName(id));
    }
    expect(leaking.length, leaking.slice(0, 5).join('\n')).toBe(0);
  }, 900_000);
});
