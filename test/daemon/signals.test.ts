import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/** `reportd daemon` as ops run it: a process that serves /healthz and stops cleanly on SIGTERM. */
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

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

describe('reportd daemon process', () => {
  it('answers /healthz, then exits 0 on SIGTERM with the listener closed and no secret logged', async () => {
    const config = join(tmp.dir, 'reportd.yaml');
    writeFileSync(
      config,
      `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret} }
sync: { query_sets: [103] }
http: { port: 0, host: 127.0.0.1 }
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'daemon', '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout.on('data', (chunk) => {
      logs += chunk;
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        logs += chunk;
        const match = /"url":"(http:\/\/[^"]+)".*http listening/.exec(logs);
        if (match) resolve(match[1]!);
      });
      child.on('exit', () => reject(new Error(`daemon exited early:\n${logs}`)));
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(logs).toContain('daemon stopped');
    expect(logs).not.toContain(sandbox.apiSecret);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 120_000);
});
