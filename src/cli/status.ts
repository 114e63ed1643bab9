import type { Command } from 'commander';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd status`: what the store holds, per account and query set, without calling the API (it
 * must work when the API or the credential does not). `--json` prints the same as one object.
 */

export function register(program: Command): void {
  program
    .command('status')
    .summary(
      'show what the store holds per account and query set (runs, snapshots, errors, budget) and the daemons sharing it',
    )
    .description(
      'What the store holds per account and query set (runs known, complete / settled / partial / missing ' +
        'snapshots, the latest complete or settled run — the default of `render`, endpoints whose answer ' +
        'drifted from its schema, last errors, rate budget in use), the daemons sharing the store (live, gone ' +
        'or stopped, last heartbeat, recent slots, leases held), and due outbox rows of reports, alerts or ' +
        'channels this config does not have (a daemon with this config never sends them: on a shared store ' +
        "another shard's config may; rows that stay there belong to a report no running config has). Never " +
        'calls the API.',
    )
    .addOption(configOption)
    .option('--json', 'print as JSON')
    .action(async (flags: ConfigOptions & { json?: boolean }) => {
      // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
      const [{ loadConfig }, { collectStatus }, { openStore }, { storeClock }, { formatStatus }] =
        await Promise.all([
          import('../config/load.js'),
          import('../status/collect.js'),
          import('../store/db.js'),
          import('../store/db-clock.js'),
          import('./status-text.js'),
        ]);
      const config = loadConfig(flags.config);
      const store = await openStore(config.store, { mustExist: true });
      try {
        // Heartbeats and leases were written on the database's clock (store/db-clock.ts).
        const clock = await storeClock(store);
        clock.close();
        const report = await collectStatus(store, config, clock.now());
        process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
      } finally {
        await store.close();
      }
    });
}
