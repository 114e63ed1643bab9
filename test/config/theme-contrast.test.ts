import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { MINIMAL, tempDir } from './fixtures.js';

/**
 * `reportd check` (a real process) warns, without refusing the config, when a report's theme colour
 * falls short of WCAG AA contrast with the text the templates draw on it or with it, naming the pair
 * and the ratio; a theme whose colours pass, and reportd's own look, say nothing.
 */
describe('reportd check on theme colours', () => {
  it('warns of a primary too pale for white text and a negative too pale for the KPI cards, and of nothing else', async () => {
    const dir = tempDir();
    const file = join(dir, 'reportd.yaml');
    writeFileSync(
      file,
      `${MINIMAL}smtp: { url: "smtp://127.0.0.1:2525", from: "Reports <r@example.com>" }
reports:
  - { name: pale, trigger: new_run, email: { to: [a@example.com] }, theme: { primary: "#9ABCDE", negative: "#F08080" } }
  - name: dark
    trigger: new_run
    email: { to: [a@example.com] }
    theme: { primary: "#1F4E79", positive: "#1C7A3E", negative: "#B0301C" }
  - { name: plain, trigger: new_run, email: { to: [a@example.com] } }
`,
    );
    const result = await runCli(['check', '--config', file]);
    expect(result.code).toBe(0);
    const warnings = result.stderr.trim().split('\n');
    expect(warnings).toEqual([
      "reportd: warning: reports[0].theme: white text on primary #9ABCDE has a contrast of 1.98:1, below the 4.5:1 WCAG AA asks of normal text (the cover band, section numbers and tags; primary headings and the email's title line on white)",
      "reportd: warning: reports[0].theme: negative #F08080 as text on the KPI cards' #F6F8FA has a contrast of 2.43:1, below the 4.5:1 WCAG AA asks of normal text (bad changes)",
    ]);
  });
});
