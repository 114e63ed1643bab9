import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/load.js';
import { MINIMAL, problems, tempDir, writeConfig } from '../config/fixtures.js';
import { runCli } from '../helpers/cli.js';

/**
 * `alerts:` names are checked against the metrics layer when the config loads: a misspelt metric,
 * field or dimension is an error naming the rule's path and the nearest known name, and `reportd check`
 * (a real process) refuses the file with that line and no stack trace.
 */

const account = {
  name: 'acme',
  base_url: 'https://api.example.com/v2/integration',
  api_key: 'k',
  api_secret: 's',
};
const load = (alerts: unknown[], extra: Record<string, unknown> = {}) =>
  configFromObject(
    { accounts: [account], smtp: { host: 'mail.example.com', from: 'r@example.com' }, alerts, ...extra },
    tempDir(),
  );
const withRules = (rules: unknown[]) => [{ name: 'a', rules, email: { to: ['cmo@example.com'] } }];

describe('alerts config', () => {
  it('accepts the rules of the issue', () => {
    const config = load(
      withRules([
        { metric: 'presence.gross', change: '<= -5' },
        { metric: 'life.kpi', value: '< 45' },
        { metric: 'presence.by-engine.weighted', per: 'engine', change: '<= -8' },
        { metric: 'presence.weighted', change: '<= -10%', baseline: 'mean_of_last_4' },
        { event: 'new_error' },
        { event: 'competitor_overtakes' },
        { event: 'classification_change' },
      ]),
    );
    expect(config.alerts[0]!.rules).toHaveLength(7);
    expect(config.alerts[0]!.email?.subject).toBe('Alert — {{report}} — {{brand}} — {{query_set}} — {{run}}');
  });

  it('names the path and the nearest name for an unknown metric, field or dimension', () => {
    expect(
      problems(() =>
        load(
          withRules([
            { metric: 'presence.gros', change: '<= -5' },
            { metric: 'life.kpi.curent', value: '< 45' },
            { metric: 'presence.by-engine.weighted', per: 'engin', change: '<= -8' },
            { metric: 'presence.by-engine', change: '<= -8' },
          ]),
        ),
      ),
    ).toEqual([
      'alerts[0].rules[0].metric: no metric "presence.gros" (did you mean presence.gross?)',
      'alerts[0].rules[1].metric: life.kpi has no field "curent" (did you mean life.kpi.current?) (fields: current, delta)',
      'alerts[0].rules[2].per: presence.by-engine has no dimension "engin" (did you mean engine?) (dimensions: engine)',
      'alerts[0].rules[3].per: presence.by-engine is only broken down; add per: engine',
    ]);
  });

  it('refuses rules that say too much or too little, bad conditions, and names shared with a report', () => {
    const lines = problems(() =>
      load(
        [
          {
            name: 'weekly',
            rules: [
              { metric: 'presence.gross' },
              { metric: 'presence.gross', change: 'down a lot' },
              { metric: 'life.kpi', value: '< 45%' },
              { event: 'new_error', change: '<= -5' },
              { metric: 'presence.gross', value: '< 30', baseline: 'mean_of_last_4' },
            ],
            email: { to: ['cmo@example.com'] },
          },
        ],
        { reports: [{ name: 'weekly', trigger: 'new_run', email: { to: ['ceo@example.com'] } }] },
      ),
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        'alerts[0].name: "weekly" is also a report name; use another',
        'alerts[0].rules[0]: set change or value (one of them) with metric',
        expect.stringMatching(/^alerts\[0\]\.rules\[1\]\.change: expected an operator and a number/),
        expect.stringMatching(
          /^alerts\[0\]\.rules\[2\]\.value: expected an operator and a number, e\.g\. "< 45"/,
        ),
        'alerts[0].rules[3].change: only with metric, not with event',
        'alerts[0].rules[4].baseline: only with change',
      ]),
    );
  });

  it('checks false_alarm_rate and for_runs: a number in range, only with change, the rate only when judged', () => {
    const config = load(
      withRules([{ metric: 'presence.gross', change: '<= -5', false_alarm_rate: 0.01, for_runs: 2 }]),
    );
    expect(config.alerts[0]!.rules[0]).toMatchObject({ false_alarm_rate: 0.01, for_runs: 2 });
    // The defaults: the rate chosen by simulation, and no persistence.
    expect(
      load(withRules([{ metric: 'presence.gross', change: '<= -5' }])).alerts[0]!.rules[0],
    ).toMatchObject({
      false_alarm_rate: 0.02,
      for_runs: 1,
    });
    expect(
      problems(() =>
        load(
          withRules([
            { metric: 'presence.gross', change: '<= -5', for_runs: 0 },
            { metric: 'presence.gross', change: '<= -5', for_runs: 1.5 },
            { metric: 'presence.gross', change: '<= -5', false_alarm_rate: 0 },
            { metric: 'presence.gross', change: '<= -5', false_alarm_rate: 0.5 },
            { metric: 'presence.gross', value: '< 30', for_runs: 2 },
            { event: 'new_error', false_alarm_rate: 0.01 },
            { metric: 'presence.gross', change: '<= -5', significant: false, false_alarm_rate: 0.01 },
          ]),
        ),
      ),
    ).toEqual([
      'alerts[0].rules[0].for_runs: expected at least 1 run',
      'alerts[0].rules[1].for_runs: expected a whole number of runs, e.g. 2',
      'alerts[0].rules[2].false_alarm_rate: expected a rate above 0, e.g. 0.02',
      'alerts[0].rules[3].false_alarm_rate: expected a rate of at most 0.2 (a rule that fires on every fifth quiet run is no alert)',
      'alerts[0].rules[4].for_runs: only with change',
      'alerts[0].rules[5].false_alarm_rate: only with metric, not with event',
      'alerts[0].rules[6].false_alarm_rate: not with significant: false (a rule that fires on every change judges nothing)',
    ]);
  });

  it('reportd check refuses a bad rule with its path, in one line, exit 2', async () => {
    const file = writeConfig(
      `${MINIMAL}smtp: { host: mail.example.com, from: r@example.com }
alerts:
  - name: visibility-drop
    rules:
      - { metric: presence.gross, change: "<= -5" }
      - { event: new_error }
      - { metric: presence.wieghted, change: "<= -10%" }
    email: { to: [cmo@example.com] }
`,
    );
    const result = await runCli(['check', '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'alerts[0].rules[2].metric: no metric "presence.wieghted" (did you mean presence.weighted?)',
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('alerts name channels like reports do: unknown names by path, email or channels, smtp only for email', () => {
    const channels = [
      {
        name: 'ops-hook',
        type: 'webhook',
        url: 'https://hooks.example.com/x',
        secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}`,
      },
    ];
    const rules = [{ event: 'new_error' }];
    expect(problems(() => load([{ name: 'a', rules, channels: ['x', 'ops-hook'] }], { channels }))).toEqual([
      'alerts[0].channels[0]: no channel named "x" (channels: ops-hook)',
    ]);
    expect(problems(() => load([{ name: 'a', rules }], { channels }))).toEqual([
      'alerts[0]: needs email, channels, or both (nothing would receive it)',
    ]);
    // Channel-only: no smtp section needed; with email it is.
    const noSmtp = (alert: Record<string, unknown>) =>
      configFromObject(
        { accounts: [account], channels, alerts: [{ name: 'a', rules, ...alert }] },
        tempDir(),
      );
    expect(noSmtp({ channels: ['ops-hook'] }).alerts[0]!.channels).toEqual(['ops-hook']);
    expect(
      problems(() => noSmtp({ channels: ['ops-hook'], email: { to: ['cmo@example.com'] } })).join('\n'),
    ).toMatch(/smtp/);
  });
});
