import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { BIN } from '../helpers/cli.js';

/** Records every npm package the process loads (see the file). */
const MODULE_LOG = fileURLToPath(new URL('../helpers/module-log.mjs', import.meta.url));

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox?.close();
  tmp?.cleanup();
});

describe('an idle daemon', () => {
  it('has synced and scheduled a report without loading puppeteer, exceljs or the Slack client', async () => {
    const config = join(tmp.dir, 'reportd.yaml');
    const loaded = join(tmp.dir, 'modules.txt');
    writeFileSync(loaded, '');
    writeFileSync(
      config,
      `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret} }
sync: { query_sets: [103] }
smtp: { url: "smtp://127.0.0.1:9", from: "r@example.com" }
reports:
  - { name: weekly, formats: [pdf, xlsx], schedule: { cron: "0 8 1 1 *" }, email: { to: [x@example.com] } }
`,
    );
    const child = spawn(process.execPath, ['--import', MODULE_LOG, BIN, 'daemon', '--config', config], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, REPORTD_TEST_MODULE_LOG: loaded },
    });
    let logs = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        logs += chunk;
        // The start-up sync pass is over: what stays loaded now is what the daemon holds while idle.
        if (/"job":"sync".*"job finished"/.test(logs) && logs.includes('daemon started')) resolve();
      });
      child.on('exit', () => reject(new Error(`daemon exited early:\n${logs}`)));
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const packages = new Set(readFileSync(loaded, 'utf8').split('\n').filter(Boolean));
    // The recorder works: what every daemon loads is there.
    expect(packages).toContain('better-sqlite3');
    expect(packages).toContain('pino');
    for (const heavy of ['puppeteer', 'puppeteer-core', 'exceljs', '@slack/web-api', 'axios']) {
      expect(packages).not.toContain(heavy);
    }
  }, 120_000);
});
