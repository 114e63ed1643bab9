import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * What the delivery CLI tests share: the sandbox API, a real SMTP server, a temporary folder for
 * configs and the store, and the built CLI run as a user runs it (warnings only in its logs).
 */
/** Requests per 60 s that the sandbox admits and the config's budget allows. */
const TEST_RATE_LIMIT = 2000;

export interface DeliveryCliEnv {
  dir: string;
  sandbox: Sandbox;
  smtp: TestSmtp;
  /** The `accounts:` block for the sandbox, to start a config with. */
  accountsYaml: string;
  /** Writes `name` in the folder and returns its path. */
  writeConfig(name: string, yaml: string): string;
  reportd(config: string, ...args: string[]): Promise<CliResult>;
  close(): Promise<void>;
}

export async function startDeliveryCliEnv(
  smtpOptions?: Parameters<typeof startSmtp>[0],
): Promise<DeliveryCliEnv> {
  const tmp = tempDir();
  const dir = realpathSync(tmp.dir);
  // The API's rate window is not what these tests check (test/api and test/sync do): a budget wide
  // enough that a second sync never waits out the default 120 per 60 s keeps each file to seconds.
  const sandbox = await startSandbox({ rate: { requests: TEST_RATE_LIMIT, windowMs: 60_000 } });
  const smtp = await startSmtp(smtpOptions);
  return {
    dir,
    sandbox,
    smtp,
    accountsYaml: `accounts:
  - name: acme
    base_url: ${sandbox.baseUrl}
    api_key: ${sandbox.apiKey}
    api_secret: ${sandbox.apiSecret}
    rate_limit: { requests: ${TEST_RATE_LIMIT}, window_seconds: 60 }
`,
    writeConfig(name, yaml) {
      const path = join(dir, name);
      writeFileSync(path, yaml);
      return path;
    },
    reportd: (config, ...args) =>
      runCli([...args, '--config', config], { cwd: dir, env: { REPORTD_LOG_LEVEL: 'warn' } }),
    async close() {
      await smtp.close();
      await sandbox.close();
      tmp.cleanup();
    },
  };
}
