/**
 * `npm run bench:recipients [-- --rows 1000]`: a recipient table against the work it stands for.
 *
 *   setup:  the sandbox (five sets) synced once over HTTP into a SQLite store; a real SMTP server
 *           (smtp-server) on loopback that counts messages and reads nothing else.
 *   A:      one report with a table of `--rows` readers (default 1,000) over 50 distinct documents
 *           (25 slices of the five sets × 2 locales), enqueued and drained by one outbox, real
 *           Chromium: renders (documents drawn), wall time, messages per minute, peak memory (RSS of
 *           the process and its Chromium children, sampled every 250 ms).
 *   B:      the same 50 documents as 50 plain reports (one address each), enqueued and drained the
 *           same way, then the rest of the messages (rows − 50) sent through the same mailer with
 *           those files attached: "render the 50 documents alone, plus send the messages".
 *   prints: A, B, and A / B (the issue's bound: at most 1.2).
 *
 * The host's load is printed before and after: on a shared two-core machine the figures move with it.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config/load.js';
import type { Config } from '../src/config/schema.js';
import { createSmtpMailer } from '../src/delivery/destinations/smtp-mailer.js';
import { enqueueDue } from '../src/delivery/due.js';
import { createReportRenderer } from '../src/delivery/render-delivery.js';
import { createOutbox } from '../src/delivery/runtime.js';
import { createLogger } from '../src/log.js';
import { startSandbox } from '../src/sandbox/server.js';
import { openStore } from '../src/store/db.js';

const ROWS = Number(flag('--rows') ?? 1000);
const SETS = [101, 102, 201, 301, 302];
const LOCALES = ['en-US', 'de-DE'];

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

/** The 25 slices: each set alone, each pair, and the ten triples (5 + 10 + 10). */
function slices(): number[][] {
  const out: number[][] = SETS.map((id) => [id]);
  for (let i = 0; i < SETS.length; i++)
    for (let j = i + 1; j < SETS.length; j++) out.push([SETS[i]!, SETS[j]!]);
  for (let i = 0; i < SETS.length; i++)
    for (let j = i + 1; j < SETS.length; j++)
      for (let k = j + 1; k < SETS.length && out.length < 25; k++) out.push([SETS[i]!, SETS[j]!, SETS[k]!]);
  return out;
}
const DOCUMENTS = slices().flatMap((sets) => LOCALES.map((locale) => ({ sets, locale })));

/** RSS (bytes) of this process and every process below it, read from /proc (no child process). */
function treeRss(): number {
  const rows: [number, number, number][] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const pages = Number(readFileSync(`/proc/${name}/statm`, 'utf8').split(' ')[1]);
      rows.push([Number(name), ppid, pages * 4096]);
    } catch {
      // Gone between the listing and the read.
    }
  }
  const inTree = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of rows)
      if (inTree.has(ppid) && !inTree.has(pid)) {
        inTree.add(pid);
        grew = true;
      }
  }
  return rows.filter(([pid]) => inTree.has(pid)).reduce((sum, [, , rss]) => sum + rss, 0);
}

/** Runs `work`, sampling the process tree's RSS; returns its wall time and the peak. */
async function measured(work: () => Promise<void>): Promise<{ ms: number; peakMb: number }> {
  let peak = treeRss();
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss());
  }, 250);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { ms: performance.now() - started, peakMb: Math.round(Math.max(peak, treeRss()) / 1e6) };
}

let received = 0;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      received++;
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const smtpPort = (smtp.server.address() as { port: number }).port;
const sandbox = await startSandbox({ extraSets: 2, rate: { requests: 100_000, windowMs: 60_000 } });
const dir = mkdtempSync(join(tmpdir(), 'reportd-bench-recipients-'));

function writeConfig(name: string, reports: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `accounts:
  - { name: north, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
store: { path: ${join(dir, `${name}.sqlite`)} }
sync: { backfill_runs: 2 }
smtp: { url: "smtp://127.0.0.1:${smtpPort}", from: "Agency <reports@agency.example>" }
output: { dir: ${join(dir, `${name}-out`)} }
log: { level: warn }
reports:
${reports}`,
  );
  return file;
}

const rows = ['email,name,query_sets,locale'];
for (let i = 0; i < ROWS; i++) {
  const doc = DOCUMENTS[i % DOCUMENTS.length]!;
  rows.push(`reader${i}@client${i % 97}.example,Reader ${i},${doc.sets.join(' ')},${doc.locale}`);
}
writeFileSync(join(dir, 'readers.csv'), `${rows.join('\n')}\n`);
const tableConfig = writeConfig(
  'table',
  `  - { name: clients, detail: summary, formats: [pdf, xlsx], schedule: { cron: "0 8 * * 1" }, recipients: readers.csv }\n`,
);
const plainConfig = writeConfig(
  'plain',
  DOCUMENTS.map(
    (doc, i) =>
      `  - { name: doc${i}, detail: summary, formats: [pdf, xlsx], query_sets: [${doc.sets.join(', ')}], locale: ${doc.locale}, schedule: { cron: "0 8 * * 1" }, email: { to: [doc${i}@client.example] } }\n`,
  ).join(''),
);

console.log(`before: ${uptime()}`);
// Not execFileSync: the sandbox answers from this process's event loop.
await promisify(execFile)(process.execPath, ['bin/reportd.js', 'sync', '--config', tableConfig]);
// The same synced store for B: both runs read identical snapshots.
copyFileSync(join(dir, 'table.sqlite'), join(dir, 'plain.sqlite'));

/** Enqueues `names`' due rows and drains the outbox once, as `deliver` and the daemon do. */
async function deliver(config: Config, names: readonly string[]): Promise<number> {
  const logger = createLogger({ level: 'warn' });
  const store = await openStore(config.store);
  const renderer = createReportRenderer({ config, store, clock: systemClock, logger, idleMs: 0 });
  const mailer = createSmtpMailer(config.smtp!);
  const outbox = createOutbox(config, { store, renderer, mailer, logger });
  try {
    let queued = 0;
    for (const name of names) {
      const report = config.reports.find((r) => r.name === name)!;
      queued += (await enqueueDue(outbox, store, report, config.accounts)).length;
    }
    const outcomes = await outbox.drain();
    const sent = outcomes.filter((o) => o.result === 'sent').length;
    if (sent !== queued) throw new Error(`${queued} queued, ${sent} sent`);
    return sent;
  } finally {
    await renderer.close();
    mailer.close();
    await store.close();
  }
}

/** Documents drawn for the table: one folder each (delivery/shared-renders.ts). */
const drawn = (out: string) =>
  readdirSync(join(out, 'clients')).filter((name) => name.startsWith('doc-')).length;

const table = loadConfig(tableConfig);
const a = await measured(async () => {
  await deliver(table, ['clients']);
});
const renders = drawn(table.output.dir);
const aReceived = received;
// Printed at once: on a loaded machine B takes as long again.
console.log(
  `A (table): ${renders} renders, ${aReceived} messages in ${(a.ms / 1000).toFixed(1)} s ` +
    `(${Math.round(aReceived / (a.ms / 60_000))} messages/min), peak ${a.peakMb} MB`,
);

const plain = loadConfig(plainConfig);
const b1 = await measured(async () => {
  await deliver(
    plain,
    plain.reports.map((r) => r.name),
  );
});
// The rest of the messages, with one document's files attached (what each reader's message carries).
const files = readdirSync(join(plain.output.dir, 'doc0'), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && /\.(pdf|xlsx)$/.test(entry.name))
  .map((entry) => join(entry.parentPath, entry.name));
const attachments = files.map((path) => ({ filename: path.split('/').pop()!, content: readFileSync(path) }));
const mailer = createSmtpMailer(plain.smtp!);
const extra = ROWS - DOCUMENTS.length;
const b2 = await measured(async () => {
  for (let i = 0; i < extra; i++) {
    await mailer.send({
      from: plain.smtp!.from,
      to: `reader${i}@client.example`,
      subject: `Report ${i}`,
      text: 'Your report is attached.',
      html: '<p>Your report is attached.</p>',
      attachments,
    });
  }
});
mailer.close();

const minutes = (ms: number) => ms / 60_000;
const bMs = b1.ms + b2.ms;
console.log(`after: ${uptime()}`);
console.log(
  JSON.stringify(
    {
      rows: ROWS,
      documents: DOCUMENTS.length,
      A_table: {
        renders,
        messages: aReceived,
        seconds: +(a.ms / 1000).toFixed(1),
        messagesPerMinute: Math.round(aReceived / minutes(a.ms)),
        peakMb: a.peakMb,
      },
      B_alone: {
        render50AndSend50Seconds: +(b1.ms / 1000).toFixed(1),
        sendRestSeconds: +(b2.ms / 1000).toFixed(1),
        seconds: +(bMs / 1000).toFixed(1),
        attachmentBytes: files.reduce((sum, path) => sum + statSync(path).size, 0),
        peakMb: Math.max(b1.peakMb, b2.peakMb),
      },
      ratio: +(a.ms / bMs).toFixed(2),
      bound: 1.2,
    },
    null,
    2,
  ),
);
smtp.close();
await sandbox.close();
rmSync(dir, { recursive: true, force: true });
