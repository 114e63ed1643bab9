import { extname, resolve } from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { channelSenders } from '../delivery/channels/index.js';
import { dryRunPayloads } from '../delivery/dry-run.js';
import { type LatestRun, latestRuns } from '../delivery/due.js';
import { writeDigestEml, writeReportEml } from '../delivery/eml.js';
import { createReportRenderer } from '../delivery/render-delivery.js';
import { UsageError } from '../errors/index.js';
import { createLogger } from '../log.js';
import { safeFileName } from '../report/file-names.js';
import { scrub } from '../secrets.js';
import { openStore } from '../store/db.js';

/** What `reportd deliver` shows instead of sending: the payloads (--dry-run), the email (--eml). */

/** `deliver --dry-run`: every destination's payload as one JSON array on stdout. */
export async function printDryRun(config: Config, report: Config['reports'][number]): Promise<void> {
  const logger = createLogger({ level: config.log.level });
  const store = await openStore(config.store);
  const renderer = createReportRenderer({ config, store, clock: systemClock, logger, idleMs: 0 });
  try {
    const payloads = await dryRunPayloads({
      config,
      store,
      report,
      renderer,
      senders: channelSenders(config.channels),
      logger,
    });
    if (payloads.length === 0) {
      throw new UsageError(
        `no complete snapshot of report "${report.name}"'s query sets is stored (run \`reportd sync\` first)`,
      );
    }
    // Scrubbed like every other output: a webhook URL may carry a token in its query string.
    process.stdout.write(`${scrub(JSON.stringify(payloads, null, 2))}\n`);
  } finally {
    await renderer.close();
    await store.close();
  }
}

/**
 * `deliver --eml FILE`: the message a delivery of each of the report's newest complete runs would
 * send, rendered by the same renderer and composer, written to FILE (one set) or FILE-<set>.eml
 * (several), and the paths printed. Never connects to the smtp server (it need not be up) and never
 * reads or writes an outbox row, so a later real delivery of the same run is unaffected.
 */
export async function previewEml(
  config: Config,
  report: Config['reports'][number],
  file: string,
  clock: Clock = systemClock,
): Promise<void> {
  const logger = createLogger({ level: config.log.level });
  const store = await openStore(config.store);
  // One clock for the render and the message (its Date header): what a delivery now would send.
  const renderer = createReportRenderer({ config, store, clock, logger, idleMs: 0 });
  try {
    const runs = await latestRuns(store, report, config.accounts);
    if (runs.length === 0) {
      throw new UsageError(
        `no complete snapshot of report "${report.name}"'s query sets is stored (run \`reportd sync\` first)`,
      );
    }
    // A digest is one message: one file, whatever the number of sets. Over one set the outbox sends
    // that set's report (due.ts, as `--dry-run` shows it), so that is what is previewed.
    if (report.mode !== 'per_set' && runs.length > 1) {
      const path = await writeDigestEml({
        config,
        store,
        report: report.name,
        runs,
        file,
        renderer,
        logger,
        clock,
      });
      process.stdout.write(`${resolve(path)}\n`);
      return;
    }
    for (const run of runs) {
      const path = await writeReportEml({
        config,
        store,
        report: report.name,
        querySetId: run.querySetId,
        runId: run.runId,
        account: run.account,
        file: runs.length === 1 ? file : emlFileFor(file, run, runs),
        renderer,
        logger,
        clock,
      });
      process.stdout.write(`${resolve(path)}\n`);
    }
  } finally {
    await renderer.close();
    await store.close();
  }
}

/** `preview.eml` → `preview-102.eml` (with the account too when two accounts share the set id). */
function emlFileFor(file: string, run: LatestRun, runs: readonly LatestRun[]): string {
  const ext = extname(file);
  const stem = ext ? file.slice(0, -ext.length) : file;
  const shared = runs.filter((r) => r.querySetId === run.querySetId).length > 1;
  const suffix = shared ? `${safeFileName([run.account])}-${run.querySetId}` : `${run.querySetId}`;
  return `${stem}-${suffix}${ext || '.eml'}`;
}
