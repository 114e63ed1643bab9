import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { UsageError } from '../errors/index.js';
import type { Logger } from '../log.js';
import { type CoveredRun, coversKey } from '../outbox/digest-rows.js';
import { type Delivery, EMAIL_DESTINATION, unsavedDelivery } from '../outbox/row.js';
import { isReportable } from '../store/snapshot-state.js';
import { findSnapshot } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
import type { DeliveryRenderer } from './outbox-options.js';
import { composeForPreview } from './preview.js';
import { createReportRenderer } from './render-delivery.js';

/**
 * The email a report would send, written as an `.eml` file instead of sent (the demo shows it;
 * `reportd deliver --eml` lets template authors open it in a mail client). Same renderer and composer
 * as the outbox; no outbox row is read or written, so a preview never counts as a delivery, needs no
 * SMTP server, and cannot be mistaken by the daemon for work to do.
 */
export async function writeReportEml(options: {
  config: Config;
  store: Store;
  report: string;
  querySetId: number;
  /** The newest complete run of the set when absent. */
  runId?: number;
  /** The account whose snapshot to use, when several accounts see the same set. */
  account?: string;
  file: string;
  /** A renderer to share between several previews (the caller closes it); one of our own otherwise. */
  renderer?: DeliveryRenderer;
  clock?: Clock;
  logger?: Logger;
}): Promise<string> {
  const { config, store } = options;
  const clock = options.clock ?? systemClock;
  const report = config.reports.find((r) => r.name === options.report);
  if (!report) throw new UsageError(`no report named "${options.report}" in the config`);
  const snapshot = await findSnapshot(store, {
    querySetId: options.querySetId,
    runId: options.runId,
    account: options.account,
  });
  if (!snapshot || !isReportable(snapshot.state)) {
    throw new UsageError(
      `no complete snapshot of query set ${options.querySetId} is stored (run \`reportd sync\` first)`,
    );
  }
  const messageId = `<preview-${snapshot.querySet.id}-${snapshot.run.id}-${clock.now()}@reportd>`;
  const row = unsavedDelivery(
    {
      report: report.name,
      destination: 'email',
      querySetId: snapshot.querySet.id,
      runId: snapshot.run.id,
      account: snapshot.account,
      messageId,
      covers: null,
    },
    clock.now(),
  );
  return renderToEml(options, row, clock);
}

/**
 * `writeReportEml` for a digest: the message one digest of `runs` would send, by the same renderer
 * and composer as the outbox, with no outbox row read or written.
 */
export async function writeDigestEml(options: {
  config: Config;
  store: Store;
  report: string;
  runs: readonly CoveredRun[];
  file: string;
  renderer?: DeliveryRenderer;
  clock?: Clock;
  logger?: Logger;
}): Promise<string> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const report = config.reports.find((r) => r.name === options.report);
  if (!report) throw new UsageError(`no report named "${options.report}" in the config`);
  const messageId = `<preview-digest-${clock.now()}@reportd>`;
  const now = clock.now();
  const row = unsavedDelivery(
    {
      report: report.name,
      destination: EMAIL_DESTINATION,
      querySetId: 0,
      runId: 0,
      account: null,
      messageId,
      covers: coversKey(options.runs),
    },
    now,
  );
  return renderToEml(options, row, clock);
}

/**
 * Composes `row` as the outbox would (preview.ts: the same composer, renderer and clock) and writes
 * its email. The renderer is the caller's, or one of its own closed here.
 */
async function renderToEml(
  options: { config: Config; store: Store; file: string; renderer?: DeliveryRenderer; logger?: Logger },
  row: Delivery,
  clock: Clock,
): Promise<string> {
  const { config, store } = options;
  const owned = options.renderer
    ? undefined
    : createReportRenderer({ config, store, clock, logger: options.logger, idleMs: 0 });
  const renderer = options.renderer ?? owned!;
  try {
    const message = await composeForPreview(row, { config, store, renderer, clock });
    if (!message.email) throw new UsageError(`report "${row.report}" has no email section`);
    return await writeEml((await message.email()).message, options.file);
  } finally {
    await owned?.close();
  }
}

/** Writes the message as an RFC 822 `.eml` file (what the demo shows instead of sending). */
export async function writeEml(message: Mail.Options, file: string): Promise<string> {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const info = await transporter.sendMail(message);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, info.message as Buffer);
  return file;
}
