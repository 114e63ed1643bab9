import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors/index.js';
import { MINIMAL, problems, writeConfig } from './fixtures.js';

const SMTP = 'smtp: { host: mail.example.com, from: reports@example.com }\n';
const withReport = (report: string, extra = SMTP) =>
  `${MINIMAL}${extra}reports:\n  - name: weekly\n    email: { to: [cmo@example.com] }\n${report}`;
const check = (text: string) => problems(() => loadConfig(writeConfig(text), {}));

describe('unknown keys', () => {
  it('refuses a misspelt key, naming its path and the key it resembles', () => {
    expect(check(`${MINIMAL}sync:\n  backfil_runs: 2\n`)).toEqual([
      'sync.backfil_runs: unknown key (did you mean backfill_runs?)',
    ]);
  });

  it('refuses unknown keys inside list entries and at the top level', () => {
    expect(check(`${MINIMAL}    timeout: 5\nlogging: { level: debug }\n`)).toEqual([
      'accounts[0].timeout: unknown key (did you mean timeout_seconds?)',
      'logging: unknown key (did you mean log?)',
    ]);
  });
});

describe('schedules', () => {
  it('refuses an impossible cron expression at reports[0].schedule.cron', () => {
    expect(check(withReport("    schedule: { cron: '61 * * * *' }\n"))).toEqual([
      'reports[0].schedule.cron: invalid cron expression "61 * * * *": Invalid value for minute: 61 (expected minute hour day-of-month month day-of-week (6 fields: seconds first))',
    ]);
  });

  it('refuses a cron expression with the wrong number of fields, in sync.schedule too', () => {
    const [issue] = check(`${MINIMAL}sync: { schedule: '* * * *' }\n`);
    expect(issue).toMatch(
      /^sync\.schedule: invalid cron expression "\* \* \* \*": expected 5 or 6 fields but got 4/,
    );
  });

  it('accepts 5- and 6-field expressions', () => {
    const config = loadConfig(writeConfig(withReport("    schedule: { cron: '30 0 8 * * 1-5' }\n")), {});
    expect(config.reports[0]?.schedule?.cron).toBe('30 0 8 * * 1-5');
  });

  it('refuses an unknown time zone at reports[0].schedule.timezone, suggesting the close one', () => {
    expect(check(withReport("    schedule: { cron: '0 8 * * 1', timezone: Europe/Berln }\n"))).toEqual([
      'reports[0].schedule.timezone: unknown time zone "Europe/Berln" (did you mean Europe/Berlin?)',
    ]);
  });

  it('needs exactly one of schedule and trigger', () => {
    expect(check(withReport(''))).toEqual(['reports[0]: needs a schedule (cron) or trigger: new_run']);
    expect(check(withReport("    schedule: { cron: '0 8 * * 1' }\n    trigger: new_run\n"))).toEqual([
      'reports[0].trigger: set schedule or trigger: new_run, not both',
    ]);
    expect(check(withReport('    trigger: new_publish\n'))).toEqual([
      'reports[0].trigger: the only trigger is new_run',
    ]);
  });
});

describe('reports', () => {
  const twoAccounts = `${MINIMAL}  - name: beta
    base_url: https://api.example.com/v2/integration
    api_key: key-2
    api_secret: secret-two
`;

  it('needs report.account when there are several accounts, and it must name one', () => {
    const text = `${twoAccounts}${SMTP}reports:
  - { name: a, trigger: new_run, email: { to: [x@example.com] } }
  - { name: b, account: gamma, trigger: new_run, email: { to: [x@example.com] } }
  - { name: c, account: beta, trigger: new_run, email: { to: [x@example.com] } }
`;
    expect(check(text)).toEqual([
      'reports[0].account: required when there are several accounts (acme, beta)',
      'reports[1].account: no account named "gamma" (accounts: acme, beta)',
    ]);
  });

  it('refuses duplicate account and report names', () => {
    const text = `${twoAccounts}  - { name: acme, base_url: 'https://x.example.com', api_key: k, api_secret: s2345 }
${SMTP}reports:
  - { name: r, account: acme, trigger: new_run, email: { to: [x@example.com] } }
  - { name: r, account: acme, trigger: new_run, email: { to: [x@example.com] } }
`;
    expect(check(text)).toEqual([
      'accounts[2].name: duplicate account name "acme" (also accounts[0])',
      'reports[1].name: duplicate report name "r" (also reports[0])',
    ]);
  });

  it('checks formats, query sets and email addresses', () => {
    const report = `    trigger: new_run
    formats: [pdf, docx]
    query_sets: [101, -2]
    max_attachment_mb: 0
`;
    const text = `${MINIMAL}${SMTP}reports:\n  - name: weekly\n    email: { to: [cmo-at-example.com], cc: ['Ops <ops@example.com>'] }\n${report}`;
    expect(check(text)).toEqual([
      'reports[0].query_sets[1]: expected number to be >0',
      'reports[0].formats[1]: expected one of "pdf"|"xlsx"|"html"',
      'reports[0].email.to[0]: expected an email address like ops@example.com or "Ops <ops@example.com>"',
      'reports[0].max_attachment_mb: expected number to be >0',
    ]);
    expect(check(withReport('    trigger: new_run\n    query_sets: []\n'))).toHaveLength(1);
    expect(check(withReport('    trigger: new_run\n    query_sets: some\n'))).toEqual([
      'reports[0].query_sets: expected "all" or a non-empty list of query set ids (positive integers)',
    ]);
  });

  it('refuses an email subject with an unknown variable or broken Handlebars, and takes the known ones', () => {
    const withSubject = (subject: string) =>
      withReport('    trigger: new_run\n').replace(
        '{ to: [cmo@example.com] }',
        `{ to: [cmo@example.com], subject: "${subject}" }`,
      );
    const good = '{{brand}} · {{query_set}} · {{run}} ({{report}})';
    expect(loadConfig(writeConfig(withSubject(good)), {}).reports[0]?.email?.subject).toBe(good);
    expect(check(withSubject('{{brnad}} weekly'))).toEqual([
      'reports[0].email.subject: unknown variable {{brnad}}; use {{brand}}, {{query_set}}, {{run}}, {{report}}, {{sets}}, {{period}}',
    ]);
    const [broken] = check(withSubject('{{brand} weekly'));
    // One line that shows where and what: not Handlebars' bare "Parse error on line 1:".
    expect(broken).toMatch(
      /^reports\[0\]\.email\.subject: not a valid Handlebars template: Parse error on line 1, after "\{\{brand": Expecting .*'CLOSE'.*, got 'INVALID'$/,
    );
  });

  it('needs smtp as soon as a report is emailed', () => {
    expect(check(withReport('    trigger: new_run\n', ''))).toEqual([
      'smtp: required: some reports are delivered by email',
    ]);
  });
});

describe('accounts and smtp', () => {
  it('needs at least one account, with an http(s) base_url', () => {
    expect(check('accounts: []\n')).toEqual(['accounts: at least one account is needed']);
    expect(check(MINIMAL.replace('https://api.example.com/v2/integration', 'ftp://api.example.com'))).toEqual(
      ['accounts[0].base_url: expected an http(s) URL such as https://api.example.com/v2/integration'],
    );
    expect(check(MINIMAL.replace('    api_key: key-1\n', ''))).toEqual(['accounts[0].api_key: required']);
  });

  it('takes either smtp.url or the parts', () => {
    expect(
      check(`${MINIMAL}smtp: { url: 'smtp://u:p1234@mail.example.com', port: 25, from: r@example.com }\n`),
    ).toEqual(['smtp.port: not allowed with smtp.url (put it in the URL)']);
    expect(check(`${MINIMAL}smtp: { from: r@example.com }\n`)).toEqual(['smtp.host: required (or smtp.url)']);
    const config = loadConfig(
      writeConfig(
        `${MINIMAL}smtp: { url: 'smtps://u%40x:p%2F1234@mail.example.com', from: r@example.com }\n`,
      ),
      {},
    );
    expect(config.smtp).toMatchObject({
      host: 'mail.example.com',
      port: 465,
      secure: true,
      user: 'u@x',
      password: 'p/1234',
    });
  });

  it('refuses a malformed percent-escape in smtp.url without repeating the password', () => {
    const issues = check(
      `${MINIMAL}smtp: { url: 'smtp://u:p%zzword@mail.example.com', from: r@example.com }\n`,
    );
    expect(issues).toEqual([
      'smtp.url: the user or password has a malformed percent-escape (write a literal % as %25)',
    ]);
  });
});

describe('syntax and reporting', () => {
  it('refuses bad YAML with line and column', () => {
    expect(check(`${MINIMAL}sync:\n  query_sets: [101, 102\nlog: { level: info }\n`)).toEqual([
      'line 9, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  it('explains an unquoted cron expression, which YAML reads as an alias', () => {
    expect(check(`${MINIMAL}sync:\n  schedule: */10 * * * *\n`)).toEqual([
      "line 8, column 18: Unexpected alias at node end (quote values that start with *, e.g. schedule: '*/10 * * * *')",
    ]);
    expect(check(`${MINIMAL}sync:\n  schedule: *ten\n`)).toEqual([
      "line 8, column 13: alias *ten has no anchor (quote values that start with *, e.g. schedule: '*/10 * * * *')",
    ]);
  });

  it('reports several problems at once, one line each', () => {
    const text = `${MINIMAL}sync: { backfil_runs: 2, schedule: '61 * * * *' }
http: { port: 70000 }
log: { level: loud }
`;
    let error: unknown;
    try {
      loadConfig(writeConfig(text), {});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as ConfigError).message.split('\n');
    expect(lines[0]).toMatch(/^invalid config .*reportd\.yaml:$/);
    expect(lines.slice(1).map((line) => line.trim().split(':')[0])).toEqual([
      'sync.schedule',
      'sync.backfil_runs',
      'http.port',
      'log.level',
    ]);
    expect((error as ConfigError).exitCode).toBe(2);
  });

  it('names the file when it does not exist', () => {
    expect(problems(() => loadConfig('/nonexistent/reportd.yaml', {}))).toEqual([
      '/nonexistent/reportd.yaml: cannot read: no such file (pass --config FILE or set REPORTD_CONFIG)',
    ]);
  });

  it('refuses an empty file', () => {
    expect(check('# nothing yet\n')).toEqual([
      '(top level): the config is empty (at least accounts is needed)',
    ]);
  });
});

describe('cron expressions and the scheduler', () => {
  // One parser (src/config/cron.ts) validates and schedules: whatever the config accepts fires.
  const samples = [
    '0 8 * * 1',
    '0 8 * * MON',
    '0 0 8 * * 1',
    '0 8 * JAN-MAR 1-5',
    '*/15 9-17 * * 1-5',
    '0 8 1,15 * *',
    '0 8 L * *',
    '0 8 * * 1#2',
    '@daily',
  ];
  it.each(samples)('accepts %s, and the scheduler has a next slot for it', async (cron) => {
    const { nextFireTime } = await import('../../src/config/cron.js');
    const config = loadConfig(writeConfig(`${MINIMAL}sync: { schedule: '${cron}' }\n`), {});
    expect(config.sync.schedule).toBe(cron);
    expect(nextFireTime(cron, 'UTC', Date.UTC(2026, 0, 1))).toBeGreaterThan(Date.UTC(2026, 0, 1));
  });
});
