import type { Command } from 'commander';
import { UsageError } from '../errors/index.js';
import { printable } from '../printable.js';
import { type ConfigOptions, configOption } from './options.js';

/**
 * `reportd alerts --config FILE [--set ID] [--run ID]`: what each alert would say about a stored run
 * (the newest by default), without queueing or sending anything, so thresholds can be tuned on real
 * history. Exit 0 whether or not something fires.
 */

interface AlertsFlags extends ConfigOptions {
  set?: string;
  run?: string;
}

function positiveId(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`${flag} takes a positive id, got "${value}"`);
  return Number(value);
}

export function register(program: Command): void {
  program
    .command('alerts')
    .summary('print what the configured alerts would fire for a stored run, without sending')
    .description(
      'Prints what each configured alert would fire for a stored run (the newest of each watched set by ' +
        'default): every rule that fires, and rules skipped for missing data. Nothing is queued or sent, so ' +
        'thresholds can be tuned on real history. Exit 0 whether or not something fires.',
    )
    .addOption(configOption)
    .option('--set <id>', 'only this query set')
    .option('--run <id>', 'this stored run instead of the newest')
    .action(async (flags: AlertsFlags) => {
      // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
      const [{ comparedWithText }, { evaluateSet, historiesOf }, { loadConfig }, { openStore }] =
        await Promise.all([
          import('../alerts/compared-with-text.js'),
          import('../alerts/run-alerts.js'),
          import('../config/load.js'),
          import('../store/db.js'),
        ]);
      const config = loadConfig(flags.config);
      const setId = positiveId(flags.set, '--set');
      const runId = positiveId(flags.run, '--run');
      if (config.alerts.length === 0) {
        process.stdout.write(`no alerts in ${flags.config}\n`);
        return;
      }
      const store = await openStore(config.store, { mustExist: true });
      try {
        let evaluated = 0;
        for (const alert of config.alerts) {
          for (const history of await historiesOf(store, alert, config.accounts)) {
            if (setId !== undefined && history.querySetId !== setId) continue;
            const result = await evaluateSet(store, alert, history, runId);
            if (!result) continue;
            evaluated++;
            const { content, skipped } = result;
            const head = `${alert.name} · set ${content.querySetId} (${content.querySet}) · run ${content.run.id} (${content.run.label}) vs ${comparedWithText(content, 'nothing earlier')}`;
            process.stdout.write(`${printable(head)}\n`);
            if (content.firings.length === 0) process.stdout.write('  nothing fires\n');
            for (const firing of content.firings)
              process.stdout.write(`  FIRES  ${printable(firing.headline)}\n`);
            for (const skip of skipped)
              process.stdout.write(`  skipped rule ${skip.rule}: ${printable(skip.reason)}\n`);
          }
        }
        if (evaluated === 0) {
          const what =
            runId !== undefined
              ? `run ${runId}`
              : setId !== undefined
                ? `query set ${setId}`
                : 'any watched set';
          process.stdout.write(`no stored snapshot of ${what} (run \`reportd sync\` first)\n`);
        }
      } finally {
        await store.close();
      }
    });
}
