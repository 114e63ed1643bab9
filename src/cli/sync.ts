import type { Command } from 'commander';
import type { AfterPassDeps } from '../daemon/after-pass.js';
import { ReportdError, SyncIncompleteError } from '../errors/index.js';
import { printable } from '../printable.js';
import type { SyncProgress, SyncSummary } from '../sync/types.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd sync`: one sync pass over every account, then exit. Exit 0 when everything due is stored;
 * otherwise exit 1 with one line saying why (`reportd: account acme: not authorized (GET /brands/list)`).
 * Scheduling is the daemon's job (`reportd daemon` syncs on `sync.schedule`), so `--once` is the
 * explicit spelling of what `sync` always does, for scripts and cron jobs that want to say so.
 */

interface SyncFlags extends ConfigOptions {
  once?: boolean;
  progress?: boolean;
}

export function register(program: Command): void {
  program
    .command('sync')
    .summary(
      'fetch newly published runs into the store (one pass; `reportd daemon` repeats it on sync.schedule)',
    )
    .description(
      'One sync pass over every account, then exit: lists the catalog, asks every wanted set for its ' +
        'published runs and fetches the metric payloads of the newest `sync.backfill_runs` runs not complete ' +
        'yet. Exit 1 with one line saying why when not everything due was stored. `reportd daemon` repeats ' +
        'it on `sync.schedule`.',
    )
    .addOption(configOption)
    .option('--once', 'run one pass and exit (what `sync` always does; for scripts that want to say so)')
    .option(
      '--no-progress',
      'only the final line; without it a progress bar on a terminal, one line per snapshot otherwise',
    )
    .action((flags: SyncFlags) => syncCommand(flags));
}

/** `sync` itself: one pass, its lines, what follows it queued; exit 1 (130 when stopped) when not all is stored. */
async function syncCommand(flags: SyncFlags): Promise<void> {
  // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
  const [{ loadConfig }, { createLogger }, { openStore }, { storeClock }, { runSync }] = await Promise.all([
    import('../config/load.js'),
    import('../log.js'),
    import('../store/db.js'),
    import('../store/db-clock.js'),
    import('../sync/sync.js'),
  ]);
  const config = loadConfig(flags.config);
  const store = await openStore(config.store);
  const controller = new AbortController();
  // Ctrl+C stops cleanly: in-flight requests are aborted, every stored payload stays stored.
  const stop = () => controller.abort(new ReportdError('interrupted'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const logger = createLogger({ level: config.log.level });
  const progress = flags.progress === false ? undefined : progressPrinter(process.stderr);
  // Leases and the shared budget are timed by the database's clock, as the daemons time them.
  const clock = await storeClock(store, { logger });
  try {
    const summary = await runSync({
      store,
      clock,
      accounts: config.accounts,
      settings: config.sync,
      signal: controller.signal,
      logger,
      onProgress: progress?.update,
      // Said even with --no-progress: otherwise a waiting sync looks hung.
      onWait: (message) => process.stderr.write(`reportd: ${printable(message)}\n`),
    });
    progress?.finish();
    // The progress and summary lines are numbers only; the failure line (API text) is filtered by
    // main.ts's reportFailure.
    for (const gone of summary.goneSets) {
      process.stderr.write(
        `reportd: account ${printable(gone.account)}: query set ${gone.querySetId} not found (-132); marked gone and skipped\n`,
      );
    }
    process.stdout.write(`${summaryLine(summary)}\n`);
    await queueWhatFollows({ config, store, clock, logger }, summary, controller.signal);
    const failure = failureReason(summary);
    if (failure) {
      const error = new SyncIncompleteError(failure);
      // 130 is what shells expect of a command stopped by Ctrl+C.
      if (summary.aborted) error.exitCode = 130;
      throw error;
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    clock.close();
    await store.close();
  }
}

/**
 * What the daemon does after a pass, through the same function: incidents (and their failure
 * notices), `trigger: new_run` reports and alerts are queued, so a cron-driven `reportd sync` +
 * `reportd deliver --pending` behaves like the daemon. Only queued: sending is the outbox's job.
 */
async function queueWhatFollows(
  { config, store, clock, logger }: Pick<AfterPassDeps, 'config' | 'store' | 'clock' | 'logger'>,
  summary: SyncSummary,
  signal: AbortSignal,
): Promise<void> {
  const [{ afterSyncPass }, { createOutbox }, { IncidentWatch }] = await Promise.all([
    import('../daemon/after-pass.js'),
    import('../delivery/runtime.js'),
    import('../notify/watch.js'),
  ]);
  const after = await afterSyncPass(
    {
      config,
      store,
      clock,
      logger,
      // No renderer: it only queues (the Message-IDs are fixed there) and needs no SMTP.
      outbox: createOutbox(config, { store, clock, logger }),
      watch: new IncidentWatch({ config, store, clock, logger }),
    },
    summary,
    signal,
  );
  const sends = '`reportd deliver --pending` or the daemon sends them';
  if (after.reports > 0) process.stdout.write(`reports: ${after.reports} message(s) queued; ${sends}\n`);
  if (after.alerts > 0) process.stdout.write(`alerts: ${after.alerts} message(s) queued; ${sends}\n`);
  if (after.notices) process.stdout.write(`failure notices: an incident opened or cleared; ${sends}\n`);
}

export function summaryLine(summary: SyncSummary): string {
  const seconds = (summary.durationMs / 1000).toFixed(1);
  return (
    `synced ${summary.snapshotsCompleted}/${summary.snapshotsDue} due snapshots in ${seconds}s ` +
    `(${summary.requests} requests, ${summary.metricRequests} metric, ${summary.rateLimited} rate-limited)`
  );
}

/** The one line that says why the pass is not a success, or undefined when it is. */
export function failureReason(summary: SyncSummary): string | undefined {
  if (summary.aborted) return 'sync interrupted; stored payloads are kept and the next sync resumes';
  // A -4 comes first: it is the one a person must act on.
  const first = summary.errors.find((e) => e.kind === 'not_authorized') ?? summary.errors[0];
  if (first) {
    const more = summary.errors.length - 1;
    return more > 0 ? `${first.message} (and ${more} more problem${more > 1 ? 's' : ''})` : first.message;
  }
  if (summary.snapshotsIncomplete > 0) {
    const n = summary.snapshotsIncomplete;
    return `${n} due snapshot${n > 1 ? 's are' : ' is'} not complete (payloads kept failing validation); see reportd status`;
  }
  return undefined;
}

/**
 * A progress bar redrawn in place with \r on a TTY; on anything else (logs, CI) a plain line each
 * time a snapshot completes, so the output stays readable as a file.
 */
export function progressPrinter(out: NodeJS.WriteStream) {
  const tty = out.isTTY === true;
  let lastDraw = 0;
  let lastDone = -1;
  let last: SyncProgress | undefined;
  let lastDrawn: SyncProgress | undefined;
  const draw = (progress: SyncProgress) => {
    lastDrawn = progress;
    if (tty) {
      const width = 24;
      const share = progress.payloadsTotal ? progress.payloadsDone / progress.payloadsTotal : 0;
      const filled = Math.round(share * width);
      const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
      out.write(`\r${bar} ${progressText(progress)}\x1b[K`);
    } else {
      out.write(`sync: ${progressText(progress)}\n`);
    }
  };
  return {
    update(progress: SyncProgress) {
      last = progress;
      const now = Date.now();
      if (tty) {
        // Redraw at most 10 times a second: a terminal does not need every request.
        if (now - lastDraw >= 100 || progress.phase === 'done') {
          lastDraw = now;
          draw(progress);
        }
      } else if (progress.phase === 'fetch' && progress.snapshotsDone !== lastDone) {
        lastDone = progress.snapshotsDone;
        draw(progress);
      }
    },
    finish() {
      if (!tty || !last) return;
      // The bar may lag behind the last event (redraws are throttled): show the final state, keep it.
      if (last !== lastDrawn) draw(last);
      out.write('\n');
    },
  };
}

export function progressText(progress: SyncProgress): string {
  const eta = progress.etaMs === null ? '' : `, ETA ${formatDuration(progress.etaMs)}`;
  return (
    `${progress.snapshotsDone}/${progress.snapshotsTotal} snapshots, ` +
    `${progress.payloadsDone}/${progress.payloadsTotal} payloads, ${progress.requests} requests${eta}`
  );
}

/** `0:07`, `12:30`, `1:02:03`: an ETA, so seconds are precise enough. */
export function formatDuration(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
