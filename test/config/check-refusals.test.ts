import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from './fixtures.js';

/**
 * `reportd check` (a real process) refuses values that load fine but break at run time: a duration
 * no timer holds, a secret "file" that is a device or a FIFO, a templates folder or browser that is
 * not there, credentials inside the API URL. Every problem is one line naming its config path, and
 * the check never hangs on a FIFO or reads /dev/zero forever.
 */
describe('reportd check refuses what would break at run time', () => {
  function write(dir: string, lines: string[]): string {
    const file = join(dir, 'reportd.yaml');
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }

  it('refuses durations past 2^31 ms, secret files that are a device or a FIFO, and missing templates.dir and chromium.path', async () => {
    const dir = tempDir();
    execFileSync('mkfifo', [join(dir, 'secret.fifo')]);
    const file = write(dir, [
      'accounts:',
      '  - name: zero',
      '    base_url: https://api.example.com/v2/integration',
      '    api_key: key-1',
      '    api_secret_file: /dev/zero',
      '    timeout_seconds: 9999999999',
      '  - name: fifo',
      '    base_url: https://api.example.com/v2/integration',
      '    api_key: key-2',
      '    api_secret_file: ./secret.fifo',
      '    rate_limit: { window_seconds: 2147484 }',
      'templates: { dir: ./no-such-templates }',
      'chromium: { path: ./no-such-chrome, render_timeout_seconds: 2147483 }',
    ]);
    const result = await runCli(['check', '--config', file], { env: { REPORTD_CHROMIUM: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('accounts[0].api_secret_file: /dev/zero is not a regular file');
    expect(result.stderr).toContain(
      `accounts[1].api_secret_file: ${join(dir, 'secret.fifo')} is not a regular file`,
    );
    expect(result.stderr).toMatch(/accounts\[0\]\.timeout_seconds: .*at most 2147483 seconds/);
    expect(result.stderr).toMatch(/accounts\[1\]\.rate_limit\.window_seconds: .*at most 2147483 seconds/);
    // 2147483 s still fits a timer: not refused.
    expect(result.stderr).not.toContain('render_timeout_seconds');
    expect(result.stderr).not.toMatch(/\n\s+at |unexpected error/);

    // With the load-time problems fixed, the paths that only rendering needs are checked too.
    writeFileSync(join(dir, 'secret'), 'secret-1\n');
    const paths = write(dir, [
      'accounts:',
      '  - name: acme',
      '    base_url: https://api.example.com/v2/integration',
      '    api_key: key-1',
      '    api_secret_file: ./secret',
      'templates: { dir: ./no-such-templates }',
      'chromium: { path: ./no-such-chrome }',
    ]);
    const second = await runCli(['check', '--config', paths], { env: { REPORTD_CHROMIUM: '' } });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`templates.dir: ${join(dir, 'no-such-templates')} does not exist`);
    expect(second.stderr).toContain(`chromium.path: ${join(dir, 'no-such-chrome')} does not exist`);

    mkdirSync(join(dir, 'no-such-templates'));
    writeFileSync(join(dir, 'no-such-chrome'), '#!/bin/sh\n', { mode: 0o755 });
    const fixed = await runCli(['check', '--config', paths], { env: { REPORTD_CHROMIUM: '' } });
    expect(fixed.code, fixed.stderr).toBe(0);
  });

  it('refuses credentials inside base_url without printing them', async () => {
    const dir = tempDir();
    const file = write(dir, [
      'accounts:',
      '  - name: acme',
      '    base_url: https://ops:hunter2-in-url@api.example.com/v2/integration',
      '    api_key: key-1',
      '    api_secret: secret-1',
    ]);
    const result = await runCli(['check', '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'accounts[0].base_url: must not contain credentials (user:password@); use api_key and api_secret',
    );
    expect(result.stdout + result.stderr).not.toContain('hunter2-in-url');
  });
});
