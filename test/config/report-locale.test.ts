import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { documentSettings } from '../../src/report/render.js';
import { MINIMAL, problems, writeConfig } from './fixtures.js';

const SMTP = 'smtp: { host: mail.example.com, from: reports@example.com }\n';
const withReport = (report: string) =>
  `${MINIMAL}${SMTP}reports:\n  - name: weekly\n    email: { to: [cmo@example.com] }\n${report}`;
const TRIGGER = '    trigger: new_run\n';
const check = (text: string) => problems(() => loadConfig(writeConfig(text), {}));

describe('reports[].locale, page and timezone', () => {
  it('reads them, and fills the documented defaults', () => {
    const config = loadConfig(
      writeConfig(
        withReport(
          "    locale: de-DE\n    page: { size: Letter, orientation: landscape }\n    timezone: Europe/Berlin\n    schedule: { cron: '0 8 * * 1', timezone: America/New_York }\n",
        ),
      ),
      {},
    );
    const report = config.reports[0];
    expect(report).toMatchObject({
      locale: 'de-DE',
      page: { size: 'Letter', orientation: 'landscape' },
      timezone: 'Europe/Berlin',
    });
    expect(report && documentSettings(report)).toEqual({
      locale: 'de-DE',
      page: { size: 'Letter', orientation: 'landscape' },
      timeZone: 'Europe/Berlin',
      alpha: 0.05,
    });
    const defaults = loadConfig(
      writeConfig(withReport(`${TRIGGER}    page: { orientation: landscape }\n`)),
      {},
    ).reports[0];
    expect(defaults).toMatchObject({ locale: 'en-US', page: { size: 'A4', orientation: 'landscape' } });
  });

  it('prints dates in the schedule time zone unless the report sets its own', () => {
    const [scheduled] = loadConfig(
      writeConfig(withReport("    schedule: { cron: '0 8 * * 1', timezone: Europe/Paris }\n")),
      {},
    ).reports;
    expect(scheduled && documentSettings(scheduled).timeZone).toBe('Europe/Paris');
    const [onNewRun] = loadConfig(writeConfig(withReport('    trigger: new_run\n')), {}).reports;
    expect(onNewRun && documentSettings(onNewRun).timeZone).toBe('UTC');
  });

  it('names the field of an unsupported locale, paper size or zone', () => {
    expect(
      check(
        withReport(
          `${TRIGGER}    locale: pt-BR\n    page: { size: A3, orientation: sideways }\n    timezone: Europe/Berln\n`,
        ),
      ),
    ).toEqual([
      'reports[0].locale: expected one of en-US, en-GB, de-DE, fr-FR, es-ES',
      expect.stringMatching(/^reports\[0\]\.page\.size: .*A4.*Letter.*Legal/),
      expect.stringMatching(/^reports\[0\]\.page\.orientation: .*portrait.*landscape/),
      'reports[0].timezone: unknown time zone "Europe/Berln" (did you mean Europe/Berlin?)',
    ]);
  });
});
