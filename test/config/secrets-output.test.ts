import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { MASK, maskedConfig } from '../../src/config/mask.js';
import { ConfigError } from '../../src/errors/index.js';
import { scrub } from '../../src/secrets.js';
import { writeConfig } from './fixtures.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const main = join(root, 'src/cli/main.ts');

const API_SECRET = 'api-secret-7f3a9c';
const SMTP_PASSWORD = 'smtp-pw-42b8e1';
const text = `
accounts:
  - name: acme
    base_url: https://api.example.com/v2/integration
    api_key: key-1
    api_secret: \${API_SECRET}
smtp:
  url: smtp://reportd:\${SMTP_PASSWORD}@mail.example.com:2525
  from: reports@example.com
reports:
  - { name: weekly, trigger: new_run, email: { to: [cmo@example.com] } }
`;
const env = { API_SECRET, SMTP_PASSWORD };

function check(file: string, extraEnv: Record<string, string> = {}) {
  return spawnSync(tsx, [main, 'check', '--config', file], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env, ...extraEnv },
  });
}

describe('secrets stay out of output', () => {
  it('masks the API secret, the SMTP password and the password inside the SMTP URL', () => {
    const config = loadConfig(writeConfig(text), env);
    expect(config.accounts[0]?.api_secret).toBe(API_SECRET);
    expect(config.smtp?.password).toBe(SMTP_PASSWORD);
    const printed = JSON.stringify(maskedConfig(config));
    expect(printed).not.toContain(API_SECRET);
    expect(printed).not.toContain(SMTP_PASSWORD);
    expect(maskedConfig(config).smtp?.url).toBe(`smtp://reportd:${MASK}@mail.example.com:2525`);
    // The original stays intact and frozen.
    expect(config.smtp?.url).toContain(SMTP_PASSWORD);
  });

  it('keeps a secret out of the error when the URL holding it is refused', () => {
    const broken = text
      .replace('@mail.example.com:2525', '@mail example.com:99999')
      .replace('from: reports@example.com', 'from: nobody');
    let message = '';
    try {
      loadConfig(writeConfig(broken), env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as ConfigError).message;
    }
    expect(message).toContain('smtp.url: expected an smtp:// or smtps:// URL');
    expect(message).toContain('smtp.from: expected an email address');
    expect(message).not.toContain(SMTP_PASSWORD);
    // Registered even though the config was refused, so logs scrub it too.
    expect(scrub(`connecting with ${SMTP_PASSWORD}`)).not.toContain(SMTP_PASSWORD);
  });
});

describe('reportd check', () => {
  it('prints the resolved config with secrets masked and exits 0', () => {
    const file = writeConfig(text);
    const result = check(file);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`# ${file}: valid`);
    expect(result.stdout).toContain(`path: ${join(dirname(file), 'data/reportd.sqlite')}`);
    expect(result.stdout).toContain('api_secret: "********"');
    expect(result.stdout).not.toContain(API_SECRET);
    expect(result.stdout).not.toContain(SMTP_PASSWORD);
  });

  it('lists every problem, one per line, without a stack trace, and exits 2', () => {
    const file = writeConfig(
      text
        .replace('name: acme', 'name: acme\n    timeout_secs: 5')
        .replace('trigger: new_run', "schedule: { cron: '61 * * * *' }"),
    );
    const result = check(file);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      `reportd: invalid config ${file}:`,
      '  accounts[0].timeout_secs: unknown key (did you mean timeout_seconds?)',
      expect.stringMatching(/^ {2}reports\[0\]\.schedule\.cron: invalid cron expression "61 \* \* \* \*"/),
    ]);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 naming the file when it is missing, reading --config from REPORTD_CONFIG', () => {
    const result = spawnSync(tsx, [main, 'check'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, REPORTD_CONFIG: '/nonexistent/reportd.yaml' },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('/nonexistent/reportd.yaml: cannot read: no such file');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
