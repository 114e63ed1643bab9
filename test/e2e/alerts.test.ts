import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { spawnCli } from '../helpers/cli.js';

/**
 * The acceptance, end to end with real peers: the sandbox over HTTP, a real SMTP server and
 * `reportd daemon` as a separate process. A published run with a presence drop and a new error
 * register entry brings exactly one alert message naming the metric with before/after and quoting
 * the claim; a restart sends nothing more; a run without movement sends nothing.
 */

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
  smtp = await startSmtp();
});
afterAll(async () => {
  await sandbox?.close();
  await smtp?.close();
  tmp?.cleanup();
});

interface Daemon {
  child: ChildProcess;
  logs: () => string;
  /** Resolves once `count` sync passes have finished in this process. */
  syncPasses(count: number): Promise<void>;
  stop(): Promise<number | null>;
}

function startDaemon(config: string): Daemon {
  const child = spawnCli(['daemon', '--config', config]);
  let logs = '';
  const collect = (chunk: Buffer) => {
    logs += chunk;
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const passes = () =>
    logs.split('\n').filter((l) => l.includes('"job":"sync"') && l.includes('job finished')).length;
  return {
    child,
    logs: () => logs,
    async syncPasses(count) {
      const deadline = Date.now() + 60_000;
      while (passes() < count) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`no ${count} sync passes:\n${logs}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop() {
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('alerts end to end (sandbox, SMTP, daemon process)', () => {
  it('one message for a run with a drop and a new claim; nothing on restart; nothing for a quiet run', async () => {
    const config = join(tmp.dir, 'reportd.yaml');
    writeFileSync(
      config,
      `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
store: { path: ./store.sqlite }
sync: { query_sets: [101], schedule: "*/2 * * * * *", backfill_runs: 3 }
smtp: { url: "${smtp.url}", from: "reportd <alerts@example.com>" }
alerts:
  - name: visibility-drop
    rules:
      - { metric: presence.gross, change: "<= -5" }
      - { event: new_error }
    email: { to: [cmo@example.com] }
`,
    );
    let daemon = startDaemon(config);
    // The first pass stores the history and only records it for the alert: no mail about the past.
    await daemon.syncPasses(2);
    expect(daemon.logs()).toContain('first evaluation of this alert for this set');
    expect(smtp.messages).toHaveLength(0);

    sandbox.publishRun(101, { movement: true });
    const [message] = await smtp.waitFor(1, 60_000);
    expect(message!.subject).toMatch(
      /^Alert — visibility-drop — Northwind Coffee — Northwind — Core buying journeys — Week \d+ · 2026$/,
    );
    const text = message!.text ?? '';
    expect(text).toMatch(
      /Gross presence changed −\d+\.\d pts against the previous run \(likely change, [^)]*interval −\d+\.\d to −\d+\.\d pts at [^)]*\): \d+\.\d% → \d+\.\d%/,
    );
    expect(text).toContain('Claim: "Northwind Coffee is closing all of its shops this year."');
    expect(text).toContain('Correct answer: Northwind Coffee keeps all its shops open');
    expect(message!.html).toContain('Gross presence changed');
    expect(message!.attachments).toHaveLength(0);
    await daemon.syncPasses(daemon.logs().split('job finished').length + 1);
    expect(smtp.messages).toHaveLength(1);

    // A restart finds the run evaluated and the message sent: nothing more.
    expect(await daemon.stop()).toBe(0);
    daemon = startDaemon(config);
    await daemon.syncPasses(2);
    expect(smtp.messages).toHaveLength(1);

    // A run without movement is evaluated and sends nothing.
    sandbox.publishRun(101);
    const deadline = Date.now() + 60_000;
    while (!daemon.logs().includes('alert evaluated: nothing fired')) {
      if (Date.now() > deadline) throw new Error(`quiet run never evaluated:\n${daemon.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await daemon.syncPasses(4);
    expect(smtp.messages).toHaveLength(1);
    expect(daemon.logs()).not.toContain(sandbox.apiSecret);
    expect(await daemon.stop()).toBe(0);
  }, 180_000);
});
