import { relative } from 'node:path';
import type { Command } from 'commander';
import { progressPrinter, summaryLine } from './sync.js';

/** `reportd demo`: the whole pipeline on the built-in sandbox, no credentials or config needed. */
export function register(program: Command): void {
  program
    .command('demo')
    .summary('sync the built-in sandbox into a temporary store and write PDF reports, workbooks and an email')
    .description(
      'Starts the sandbox in-process, syncs it into a temporary store (a 5 s rate window instead of 60 s), ' +
        'writes a PDF and a workbook for every query set with a published run, the weekly email as an `.eml` ' +
        'file and `metric_values.csv` (every number as a tidy row). After its first sync it publishes one ' +
        'more run of set 101 with a presence drop and a new false claim, syncs it, and writes the alert that ' +
        'run causes as `visibility-drop.eml`. Needs no config.',
    )
    .option('--out <dir>', 'where the reports go', 'demo-output')
    .action(async (flags: { out: string }) => {
      process.stdout.write(
        'reportd demo: starting the sandbox API and syncing it (a 5 s rate window instead of 60 s)\n',
      );
      const progress = progressPrinter(process.stderr);
      const started = Date.now();
      // Imported here: registering the command must not load the demo's renderer (puppeteer) in every
      // other command, the daemon included.
      const { runDemo } = await import('../demo/demo.js');
      const result = await runDemo({ outDir: flags.out, onProgress: progress.update });
      progress.finish();
      const show = (path: string) => `  ${relative(process.cwd(), path) || path}`;
      process.stdout.write(
        [
          summaryLine(result.sync),
          'wrote:',
          ...result.files.map(show),
          show(result.email),
          show(result.alertEmail),
          show(result.metrics),
          `done in ${((Date.now() - started) / 1000).toFixed(1)}s.`,
          '',
          'Next steps:',
          '  - open the PDF and the workbook above; the .eml files open in any mail client (visibility-drop.eml',
          '    is the alert a newly published run with a presence drop and a new false claim caused);',
          '  - metric_values.csv has every number as one tidy row; on your own store, `npx reportd export',
          '    --format csv|parquet|xlsx --out DIR` writes it with its companion tables, and the SQL view',
          '    v_metric_values serves sqlite3, DuckDB or a BI tool (see docs/analysing-data.md);',
          '  - point reportd at a real account: cp config/reportd.example.yaml reportd.yaml, edit its smtp',
          '    and reports sections, set REPORTD_API_KEY, REPORTD_API_SECRET and SMTP_PASSWORD, then',
          '    `npx reportd check` and `npx reportd sync --once` (both read ./reportd.yaml; the steps are in',
          '    docs/getting-started.md);',
          '  - preview your own templates against `npx reportd sandbox` (see docs/reports-and-templates.md).',
          '',
        ].join('\n'),
      );
    });
}
