import { stringify } from 'yaml';
import { destinationIssues } from '../config/destination-address.js';
import type { Config } from '../config/index.js';
import { loadConfig } from '../config/load.js';
import { maskedConfig } from '../config/mask.js';
import { ConfigError, type ConfigIssue } from '../errors/index.js';
import { pathIssues } from '../report/check/path-checks.js';
import { templateFolders } from '../report/check/template-folders.js';
import { themeContrastWarnings } from '../report/theme/contrast.js';
import { scheduleListing } from '../schedule/listing.js';
import { scrub } from '../secrets.js';
import { statusPageAccess } from '../status/access.js';
import type { ConfigOptions } from './options.js';

/** What `reportd check` does (check.ts declares it); cli/check.ts imports this only when it runs. */
export type CheckOptions = ConfigOptions & { destinations?: boolean };

export async function runCheck(options: CheckOptions): Promise<void> {
  const config = loadConfig(options.config);
  const problems = [
    ...(await pathIssues(config)),
    ...(await destinationIssues(config)),
    ...(await ownTemplateIssues(config)),
    ...(await storedSliceIssues(config)),
  ];
  if (problems.length > 0) throw new ConfigError(options.config, problems);
  if (options.destinations) {
    const { checkDestinations } = await import('./check-destinations.js');
    process.exitCode = await checkDestinations(config);
    return;
  }
  // Masked by field, then scrubbed by value in case a secret was also pasted into another field.
  const text = scrub(stringify(withTablesCounted(maskedConfig(config)), { lineWidth: 0 }));
  const schedules = scheduleListing(config, Date.now()).join('\n');
  process.stdout.write(`# ${options.config}: valid\n${text}${schedules}\n`);
  const page = statusPageAccess(config.http);
  // A warning, not an error: the probes work and the daemon runs; only the page stays dark.
  if (config.http.port !== undefined && page.mode === 'off') {
    process.stderr.write(`reportd: warning: ${page.reason}\n`);
  }
  // Warnings too: the report prints, but some of its readers cannot read all of it.
  config.reports.forEach((report, index) => {
    for (const line of report.theme ? themeContrastWarnings(report.theme) : []) {
      process.stderr.write(`reportd: warning: reports[${index}].theme: ${line}\n`);
    }
  });
}

/** A recipient table printed as its size (it may hold 10,000 rows); `reportd recipients` lists it. */
function withTablesCounted(config: Config): unknown {
  return {
    ...config,
    reports: config.reports.map((report) =>
      report.recipients
        ? {
            ...report,
            recipients: `${report.recipients.length} readers (see \`reportd recipients ${report.name}\`)`,
          }
        : report,
    ),
  };
}

/**
 * A template that will not render is as much a setup mistake as a missing folder. Only the folders
 * of the user's are walked (report/check/template-folders.ts says why), and the checker, with its
 * Handlebars walk, catalogs and view schema, is loaded only when there is one.
 */
async function ownTemplateIssues(config: Config): Promise<ConfigIssue[]> {
  if (templateFolders(config, { ownFoldersOnly: true }).size === 0) return [];
  const [{ configTemplateProblems }, { formatProblem }] = await Promise.all([
    import('../report/check/config-templates.js'),
    import('../report/check/templates-check.js'),
  ]);
  return configTemplateProblems(config, { ownFoldersOnly: true }).map((problem) => ({
    path: 'templates',
    message: formatProblem(problem),
  }));
}

/**
 * Recipient rows checked against the sets the store has (delivery/slice-check.ts): only when a store
 * is there to ask (before the first sync, or with the store down, the config alone is judged).
 */
async function storedSliceIssues(config: Config): Promise<ConfigIssue[]> {
  const tables = config.reports.filter((report) => report.recipients);
  if (tables.length === 0) return [];
  const [{ openStore }, { sliceIssues }] = await Promise.all([
    import('../store/db.js'),
    import('../delivery/slice-check.js'),
  ]);
  const store = await openStore(config.store, { mustExist: true }).catch(() => undefined);
  if (!store) return [];
  try {
    const issues: ConfigIssue[] = [];
    for (const report of tables)
      issues.push(...(await sliceIssues(store, report.recipients ?? [], config.accounts)));
    return issues;
  } finally {
    await store.close();
  }
}
