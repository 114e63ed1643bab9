import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { scrub } from '../../src/secrets.js';
import { problems, tempDir, writeConfig } from './fixtures.js';

const config = (secretLine: string, smtp = '') => `
accounts:
  - name: acme
    base_url: https://api.example.com/v2/integration
    api_key: key-1
    ${secretLine}
${smtp}`;

describe('secrets read from files (Docker secrets)', () => {
  it('reads api_secret_file relative to the config file and drops the trailing newline', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'api_secret'), 'file-secret-123\n');
    const loaded = loadConfig(writeConfig(config('api_secret_file: ./api_secret'), dir), {});
    expect(loaded.accounts[0]?.api_secret).toBe('file-secret-123');
    expect(loaded.accounts[0]?.api_secret_file).toBe(join(dir, 'api_secret'));
    // Registered, so a log line or error that quotes it is scrubbed.
    expect(scrub('header X-Api-Secret: file-secret-123')).not.toContain('file-secret-123');
  });

  it('reads smtp password_file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'smtp_password'), 'smtp-file-pass\r\n');
    const loaded = loadConfig(
      writeConfig(
        config(
          'api_secret: secret-one',
          'smtp: { host: mail.example.com, user: reportd, password_file: smtp_password, from: r@example.com }',
        ),
        dir,
      ),
      {},
    );
    expect(loaded.smtp?.password).toBe('smtp-file-pass');
  });

  it('names the config path and the file when the secret file is missing or empty', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'empty'), '\n');
    const file = writeConfig(
      config(
        'api_secret_file: ./nope',
        'smtp: { host: h.example.com, user: u, password_file: empty, from: r@example.com }',
      ),
      dir,
    );
    expect(problems(() => loadConfig(file, {}))).toEqual([
      `accounts[0].api_secret_file: cannot read ${join(dir, 'nope')}: no such file`,
      `smtp.password_file: ${join(dir, 'empty')} is empty`,
    ]);
  });

  it('refuses both api_secret and api_secret_file, and neither', () => {
    const both = writeConfig(config('api_secret: s1234\n    api_secret_file: ./x'));
    expect(problems(() => loadConfig(both, {}))).toContain(
      'accounts[0].api_secret_file: set api_secret or api_secret_file, not both',
    );
    const neither = writeConfig(config(''));
    expect(problems(() => loadConfig(neither, {}))).toEqual([
      'accounts[0].api_secret: required (or api_secret_file)',
    ]);
  });
});
