/**
 * The YAML config the daemon tests start `reportd daemon` with: one sandbox account, the sync of set
 * 101 (its own schedule never fires: the tests sync when they choose), SMTP, an output folder and one
 * xlsx report to one recipient. Each test names only what it is about (the store, the report's slot,
 * the recipient, the roles); one writer keeps the configs from drifting apart test by test.
 */
export interface DaemonConfig {
  sandbox: { baseUrl: string; apiKey: string; apiSecret: string };
  /** The whole `store:` line: `store: { path: "…" }` or `store: { url: "postgres://…" }`. */
  store: string;
  outDir: string;
  /** Without it, no `smtp:` section (a daemon that only syncs). */
  smtpUrl?: string;
  /** A budget big enough that two daemons never wait on the API (default: the account's own). */
  rateLimit?: { requests: number; window_seconds: number };
  /** More of the account's fields, e.g. `concurrency: 4`. */
  account?: string;
  /** The runs the sync takes at its start (default 1). */
  backfillRuns?: number;
  /** Top-level lines before `reports:` (`daemon:`, `http:`, `delivery:`, `notify_on_failure:`). */
  settings?: string[];
  /**
   * The one report; `false` for none. `formats` defaults to `[xlsx]`; `[html]` renders with neither
   * ExcelJS nor Chromium, for a test that never opens the attachment.
   */
  report?: { name?: string; cron?: string; to?: string; formats?: ('pdf' | 'xlsx' | 'html')[] } | false;
}

export function daemonConfig(config: DaemonConfig): string {
  const { sandbox, rateLimit, report = {} } = config;
  const fields = [
    rateLimit
      ? `rate_limit: { requests: ${rateLimit.requests}, window_seconds: ${rateLimit.window_seconds} }`
      : undefined,
    config.account,
  ].filter((field) => field !== undefined);
  return [
    'accounts:',
    `  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}${fields.map((f) => `, ${f}`).join('')} }`,
    config.store,
    `sync: { query_sets: [101], backfill_runs: ${config.backfillRuns ?? 1}, schedule: "0 0 1 1 *" }`,
    ...(config.smtpUrl ? [`smtp: { url: "${config.smtpUrl}", from: "reports@example.com" }`] : []),
    `output: { dir: "${config.outDir}" }`,
    ...(config.settings ?? []),
    ...(report
      ? [
          'reports:',
          `  - name: ${report.name ?? 'fivesecondly'}`,
          '    query_sets: [101]',
          `    formats: [${(report.formats ?? ['xlsx']).join(', ')}]`,
          `    schedule: { cron: "${report.cron ?? '*/5 * * * * *'}", timezone: UTC }`,
          `    email: { to: [${report.to ?? 'ceo@example.com'}] }`,
        ]
      : []),
    '',
  ].join('\n');
}
