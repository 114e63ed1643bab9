import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { MASK, maskedConfig } from '../../src/config/mask.js';
import { scrub } from '../../src/secrets.js';
import { MINIMAL, problems, tempDir, writeConfig } from './fixtures.js';

/** `channels[]` and `reports[].channels`: names resolved, secrets read, masked and checked. */
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const SLACK_TOKEN = 'xoxb-1111-2222-secret-token';
const TEAMS_URL = 'https://example.webhook.office.com/webhookb2/secret-part-9f8e';
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
// A receiver's token in the webhook URL's query is a secret too, though no field says so.
const HOOK_TOKEN = 'hook-query-token-5d1c';
const env = { SLACK_BOT_TOKEN: SLACK_TOKEN, TEAMS_WEBHOOK_URL: TEAMS_URL, WEBHOOK_SECRET, HOOK_TOKEN };

const CHANNELS = `channels:
  - { name: marketing, type: slack, token: "\${SLACK_BOT_TOKEN}", channel: C0123ABCD }
  - { name: leadership, type: teams, webhook_url: "\${TEAMS_WEBHOOK_URL}" }
  - { name: ops, type: webhook, url: "https://hooks.example.com/reportd?token=\${HOOK_TOKEN}", secret: "\${WEBHOOK_SECRET}" }
`;
const check = (text: string, vars: Record<string, string> = env) =>
  problems(() => loadConfig(writeConfig(text), vars));

describe('channels in the config', () => {
  it('a report with channels only needs no smtp; secrets are read from the environment and masked', () => {
    const config = loadConfig(
      writeConfig(`${MINIMAL}${CHANNELS}reports:
  - { name: weekly, trigger: new_run, channels: [marketing, leadership, ops] }
`),
      env,
    );
    expect(config.smtp).toBeUndefined();
    expect(config.reports[0]?.channels).toEqual(['marketing', 'leadership', 'ops']);
    expect(config.channels.map((c) => c.type)).toEqual(['slack', 'teams', 'webhook']);
    expect(config.channels[0]).toMatchObject({ token: SLACK_TOKEN, api_url: 'https://slack.com/api/' });
    const masked = maskedConfig(config);
    expect(masked.channels).toMatchObject([
      { token: MASK },
      { webhook_url: MASK },
      { secret: MASK, include_files: false },
    ]);
    const printed = JSON.stringify(masked);
    for (const secret of Object.values(env)) expect(printed).not.toContain(secret);
    // Wherever else the URL shows (a log line, an error, `deliver --dry-run`), its token is scrubbed.
    expect(
      scrub(`POST ${config.channels[2]!.type === 'webhook' ? config.channels[2]!.url : ''} failed`),
    ).not.toContain(HOOK_TOKEN);
  });

  it('reads each secret from its *_file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'token'), `${SLACK_TOKEN}\n`);
    writeFileSync(join(dir, 'teams'), TEAMS_URL);
    writeFileSync(join(dir, 'hook'), `${WEBHOOK_SECRET}\n`);
    const config = loadConfig(
      writeConfig(
        `${MINIMAL}channels:
  - { name: a, type: slack, token_file: token, channel: C1 }
  - { name: b, type: teams, webhook_url_file: teams }
  - { name: c, type: webhook, url: "http://127.0.0.1:9/x", secret_file: hook, include_files: true }
reports:
  - { name: weekly, trigger: new_run, channels: [a, b, c] }
`,
        dir,
      ),
      {},
    );
    expect(config.channels).toMatchObject([
      { token: SLACK_TOKEN, token_file: join(dir, 'token') },
      { webhook_url: TEAMS_URL },
      { secret: WEBHOOK_SECRET, include_files: true },
    ]);
  });

  it('names the path of an unknown channel, a report with nowhere to go, and smtp only when email is used', () => {
    expect(
      check(`${MINIMAL}${CHANNELS}reports:
  - { name: weekly, trigger: new_run, channels: [marketing, markting] }
  - { name: monthly, trigger: new_run }
  - { name: mailed, trigger: new_run, email: { to: [cmo@example.com] }, channels: [ops, ops] }
`),
    ).toEqual([
      'reports[0].channels[1]: no channel named "markting" (channels: marketing, leadership, ops)',
      'reports[1]: needs email, channels, or both (nothing would receive it)',
      'reports[2].channels[1]: lists "ops" twice',
      'smtp: required: some reports are delivered by email',
    ]);
  });

  it('refuses a missing or doubled secret, a webhook secret not in whsec_ form (without quoting it), a bad type', () => {
    const issues = check(
      `${MINIMAL}channels:
  - { name: a, type: slack, channel: C1 }
  - { name: b, type: teams, webhook_url: x, webhook_url_file: y }
  - { name: c, type: webhook, url: https://h.example.com, secret: "not-a-standard-secret-value" }
  - { name: d, type: discord }
  - { name: email, type: teams, webhook_url: "https://h.example.com/x" }
  - { name: a, type: teams, webhook_url: "https://h.example.com/y" }
`,
      {},
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        'channels[0].token: required (or token_file)',
        'channels[1].webhook_url_file: set webhook_url or webhook_url_file, not both',
        expect.stringMatching(/^channels\[2\]\.secret: expected a Standard Webhooks secret: whsec_/),
        expect.stringMatching(/^channels\[3\]/),
        'channels[4].name: "email" is reserved for reports[].email',
        'channels[5].name: duplicate channel name "a" (also channels[0])',
      ]),
    );
    expect(issues.join('\n')).not.toContain('not-a-standard-secret-value');
  });

  it('`reportd check` prints channels with their secrets masked', () => {
    const file = writeConfig(`${MINIMAL}${CHANNELS}reports:
  - { name: weekly, trigger: new_run, channels: [marketing, ops] }
`);
    const result = spawnSync(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'src/cli/main.ts'), 'check', '--config', file],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('name: marketing');
    expect(result.stdout).toContain(`token: "${MASK}"`);
    const output = result.stdout + result.stderr;
    for (const secret of [...Object.values(env), WEBHOOK_SECRET.slice(6)])
      expect(output).not.toContain(secret);
  });
});
