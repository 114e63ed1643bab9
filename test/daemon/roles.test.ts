import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';

/** `reportd daemon --roles` and `daemon.roles` as ops write them: bad roles are one line, exit 2. */
let tmp: ReturnType<typeof tempDir>;
let config: string;
beforeAll(() => {
  tmp = tempDir();
  config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: acme, base_url: "http://127.0.0.1:1/v2/integration", api_key: k, api_secret: s }
store: { path: reportd.sqlite }
`,
  );
});
afterAll(() => tmp?.cleanup());

describe('daemon roles', () => {
  it('refuses an unknown role on the command line, naming it and the roles there are', async () => {
    const result = await runCli(['daemon', '--roles', 'worker,mailer', '--config', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'reportd: --roles: unknown role "mailer" (roles: sync, worker, scheduler, http)\n',
    );
  });

  it('refuses an unknown role in the config, naming the field', async () => {
    const bad = join(tmp.dir, 'bad.yaml');
    writeFileSync(
      bad,
      `${'accounts:\n  - { name: acme, base_url: "http://127.0.0.1:1/v2/integration", api_key: k, api_secret: s }\n'}daemon: { roles: [worker, mailer] }\n`,
    );
    const result = await runCli(['daemon', '--config', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('daemon.roles[1]');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses the http role asked for by name without http.port', async () => {
    const result = await runCli(['daemon', '--roles', 'http', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('reportd: the http role needs http.port in the config\n');
  });
});
