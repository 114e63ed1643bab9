import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { type ConfigOptions, configOption } from './options.js';

interface DaemonFlags extends ConfigOptions {
  roles?: string;
}

/**
 * `reportd daemon`: sync on `sync.schedule`, email reports on their schedules and triggers, serve
 * /healthz /readyz /metrics when `http.port` is set. Runs until SIGTERM or SIGINT, then stops cleanly:
 * the sync pass in hand is aborted between payload commits, an SMTP exchange in flight may finish,
 * Chromium is closed, the listener stops. SIGHUP reloads the config (daemon/daemon-process.ts).
 */
export function register(program: Command): void {
  program
    .command('daemon')
    .summary('run continuously: sync on schedule, email due reports, serve health and metrics')
    .description(
      'Runs until SIGTERM or SIGINT: sync on `sync.schedule` (and at start), reports on their schedules and ' +
        'triggers, the outbox worker, failure notices, and the status page, `/healthz` `/readyz` `/metrics` ' +
        'when `http.port` is set. Stops within a few seconds, or, when an SMTP exchange is in flight, once ' +
        'it has its answer (at most `smtp.shutdown_grace_seconds`, default 75, plus 4.5 s). On a store ' +
        'shared by several daemons, `--roles` splits the work: `worker` renders and sends the outbox rows of ' +
        "the reports and alerts in this process's config (and leaves the rest for a daemon whose config has " +
        'them), `scheduler` enqueues reports on their crons, `sync` runs the sync passes with their new-run ' +
        'triggers and alerts, `http` serves the status page and probes (needs `http.port`).',
    )
    .addOption(configOption)
    .option(
      '--roles <list>',
      'what this process runs, comma-separated: sync, worker, scheduler, http (default: daemon.roles, all ' +
        'four); an unknown role is refused in one line',
    )
    .addHelpText(
      'after',
      `
Schedules (what ops can rely on):
  - reports[].schedule.cron is read in reports[].schedule.timezone; across a daylight-saving change a
    time that does not exist fires when the clock jumps, a time that happens twice fires once.
  - A slot missed while the daemon was down runs once at start-up, not once per missed slot. A report
    the store has never seen waits for its first slot.
  - A job never overlaps itself: a slot that comes while the previous run is still going is skipped.
  - trigger: new_run reports send after the sync pass that stored a newer complete run of their sets.
Deliveries go through an outbox in the store: each (report, query set, run) is sent once across
restarts, kill -9 and two daemons on one store. On SIGTERM an SMTP exchange in flight is given
smtp.shutdown_grace_seconds (default 75) to get its answer, which is recorded; give the container that
long plus 5 s (docker stop -t 80). The one exception SMTP cannot close: a crash (or kill) after the server
accepted a message but before it was recorded resends it with the same Message-ID.
\`reportd history\` shows the states.
Several daemons may share one PostgreSQL store: each worker claims only the outbox rows of the reports
and alerts its own config has, so daemons with different report sets split the work, and --roles
splits a daemon (e.g. --roles worker on extra machines, one with --roles sync,scheduler,http).
SIGHUP reads the config again: a valid one replaces the running one (the next slot, sync and delivery
use it), an invalid one is refused in one line and the running one kept.`,
    )
    .action(async (flags: DaemonFlags) => {
      keepYoungGenerationSmall();
      const [{ loadConfig }, { runDaemonProcess }, { createLogger }, { parseRoles }] = await Promise.all([
        import('../config/load.js'),
        import('../daemon/daemon-process.js'),
        import('../log.js'),
        import('../daemon/roles/names.js'),
      ]);
      const roles = flags.roles === undefined ? undefined : parseRoles(flags.roles);
      const config = loadConfig(flags.config);
      // JSON lines for log collectors; readable lines when a person watches the terminal.
      const logger = createLogger({ level: config.log.level });
      await runDaemonProcess({
        config,
        logger,
        reloadConfig: () => loadConfig(flags.config),
        ...(roles ? { roles } : {}),
      });
    });
}

/**
 * A daemon is idle nearly all the time, yet V8 grows its young generation to 2 × 16 MB while the
 * modules load and start-up work runs, and never gives it back: a third of the idle daemon's RSS
 * (measured: 101 → 90 MB). Kept at its initial 1 MB semi-space instead, it costs a few more (cheap)
 * scavenges during a render, which allocates mostly short-lived strings. Set at run time, before the
 * daemon's modules load, since the growth happens then (checked: the young generation stays at 2 MB).
 */
function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
