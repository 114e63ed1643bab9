import type { Command } from 'commander';
import { UsageError } from '../errors/index.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd migrate-store --config FILE --from FILE.sqlite`: copies a SQLite store into the PostgreSQL
 * store the config names (`store.url`), so an installation moves to PostgreSQL without resyncing or
 * resending. Prints each table and its row count.
 */

interface MigrateFlags extends ConfigOptions {
  from: string;
}

export function register(program: Command): void {
  program
    .command('migrate-store')
    .summary('copy a SQLite store into the PostgreSQL store of the config (store.url)')
    .description(
      'Copies a SQLite store into the PostgreSQL store the config names (`store.url`), in one transaction, ' +
        "and prints each table with its row count. Refuses (exit 2) while the source's outbox has a row " +
        "being rendered or sent, when the config's store is not PostgreSQL, or when the database already " +
        'holds data.',
    )
    .addOption(configOption)
    .requiredOption('--from <file>', 'the SQLite store file to copy')
    .action(async (flags: MigrateFlags) => {
      // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
      const [{ loadConfig }, { copyStore, nonEmptyTables }, { rowsInFlight }, { isPostgresUrl, openStore }] =
        await Promise.all([
          import('../config/load.js'),
          import('../store/copy-store.js'),
          import('../outbox/reads.js'),
          import('../store/db.js'),
        ]);
      const config = loadConfig(flags.config);
      if (!('url' in config.store)) {
        throw new UsageError(
          'migrate-store copies into PostgreSQL: set store.url (or store.url_file) in the config',
        );
      }
      if (isPostgresUrl(flags.from)) throw new UsageError('--from takes a SQLite file, not a URL');
      // Opened as is: migrations bring an older file to this version first; no metric backfill, the
      // copy carries the derived rows across.
      const source = await openStore({ path: flags.from }, { mustExist: true, deriveMetrics: false });
      try {
        const inFlight = await rowsInFlight(source);
        if (inFlight > 0) {
          throw new UsageError(
            `${source.location} has ${inFlight} outbox row(s) being rendered or sent: stop every reportd using it (or let \`reportd deliver\` finish), then copy`,
          );
        }
        const target = await openStore(config.store, { deriveMetrics: false });
        try {
          const full = await nonEmptyTables(target);
          if (full.length > 0) {
            throw new UsageError(
              `${target.location} already holds data (${full.join(', ')}): migrate-store copies into an empty database only`,
            );
          }
          const started = Date.now();
          const copied = await copyStore(source, target);
          for (const { table, rows } of copied) console.log(`${table.padEnd(22)} ${rows}`);
          const total = copied.reduce((sum, entry) => sum + entry.rows, 0);
          console.log(
            `copied ${total} rows from ${source.location} to ${target.location} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          );
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    });
}
