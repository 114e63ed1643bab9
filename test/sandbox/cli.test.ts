import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/api/budget.js';
import { ApiClient, type RequestEvent } from '../../src/api/client.js';
import { allEndpoints, catalogEndpoints, metricEndpoints } from '../../src/api/endpoints.js';
import { SANDBOX_IDS } from '../../src/sandbox/dataset.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startCli(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sandbox', ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const url = /base URL:\s+(\S+)/.exec(stdout)?.[1];
      if (url && stdout.includes('Ctrl+C')) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  // Tests that expect the process to fail never await `ready`.
  ready.catch(() => {});
  return { child, ready, output: () => stdout, errors: () => stderr };
}

describe('reportd sandbox (CLI)', () => {
  it('prints the real port, the credentials and a curl example, serves them, and stops on SIGTERM', async () => {
    const cli = startCli(['--port', '0', '--key', 'demo-key', '--secret', 'demo-secret', '--rate', '50/1']);
    const baseUrl = await cli.ready;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:(?!0\/)\d+\/v2\/integration$/);
    expect(cli.output()).toContain('api key:    demo-key');
    expect(cli.output()).toContain('api secret: demo-secret');
    expect(cli.output()).toContain(
      `curl -s -H 'X-Api-Key: demo-key' -H 'X-Api-Secret: demo-secret' ${baseUrl}/brands/list`,
    );

    const ok = await fetch(`${baseUrl}/brands/list`, {
      headers: { 'X-Api-Key': 'demo-key', 'X-Api-Secret': 'demo-secret' },
    });
    expect(await ok.json()).toEqual([
      { id: 1, name: 'Northwind Coffee' },
      { id: 2, name: 'Lumen Tea' },
    ]);
    const refused = await fetch(`${baseUrl}/brands/list`, {
      headers: { 'X-Api-Key': 'sandbox-key', 'X-Api-Secret': 'sandbox-secret' },
    });
    expect(await refused.json()).toEqual({ error_code: -4, error_message: 'Not authorized' });

    cli.child.kill('SIGTERM');
    const [code] = await once(cli.child, 'exit');
    expect(code).toBe(0);
    expect(cli.output()).toMatch(/sandbox stopped \(2 requests served\)/);
  });

  it('serves --companies N, each company with its own key, secret and brands', async () => {
    const cli = startCli(['--port', '0', '--companies', '3']);
    const baseUrl = await cli.ready;
    expect(cli.output()).toMatch(/companies:\s+3 .*sandbox-key-3 \/ sandbox-secret-3/);
    const brands = async (key: string, secret: string) =>
      (
        await fetch(`${baseUrl}/brands/list`, { headers: { 'X-Api-Key': key, 'X-Api-Secret': secret } })
      ).json();
    expect(await brands('sandbox-key', 'sandbox-secret')).toEqual([
      { id: 1, name: 'Northwind Coffee' },
      { id: 2, name: 'Lumen Tea' },
    ]);
    expect(await brands('sandbox-key-3', 'sandbox-secret-3')).toEqual([
      { id: 21, name: 'Northwind Coffee #3' },
      { id: 22, name: 'Lumen Tea #3' },
    ]);
    expect(await brands('sandbox-key-4', 'sandbox-secret-4')).toEqual({
      error_code: -4,
      error_message: 'Not authorized',
    });
  });

  it('refuses --companies that is not a whole number >= 1', async () => {
    const cli = startCli(['--port', '0', '--companies', '2.5']);
    const [code] = await once(cli.child, 'exit');
    expect(code).toBe(2);
    expect(cli.errors().trim()).toBe('reportd: --companies must be a whole number (got "2.5")');
  });

  it('refuses a malformed --rate with a one-line usage error', async () => {
    const cli = startCli(['--port', '0', '--rate', 'fast']);
    const [code] = await once(cli.child, 'exit');
    expect(code).toBe(2);
    expect(cli.errors().trim()).toBe(
      'reportd: --rate must look like REQUESTS/SECONDS, e.g. 120/60 (got "fast")',
    );
  });

  it('says in one line, without a stack trace, that its port is taken', async () => {
    const first = startCli(['--port', '0']);
    const port = new URL(await first.ready).port;
    const second = startCli(['--port', port]);
    const [code] = await once(second.child, 'exit');
    expect(code).toBe(1);
    expect(second.errors().trim().split('\n')).toHaveLength(1);
    expect(second.errors()).toContain(`EADDRINUSE`);
    expect(second.errors()).toContain(`:${port}`);
    expect(second.errors()).toContain('choose another port');
    expect(second.errors()).not.toContain('bug');
  });

  it('with --faults, answers 502s, resets and stalls that the client recovers from on every request', async () => {
    const cli = startCli(['--port', '0', '--faults', '0.4', '--stall-ms', '5000', '--rate', '1000/60']);
    const baseUrl = await cli.ready;
    const events: RequestEvent[] = [];
    const client = new ApiClient({
      baseUrl,
      apiKey: 'sandbox-key',
      apiSecret: 'sandbox-secret',
      budget: new RateBudget({ key: 'sandbox-key', requests: 1000, windowMs: 60_000, concurrency: 4 }),
      // Shorter than the stall, so a stalled request is abandoned and retried.
      timeoutMs: 1_000,
      backoff: { baseMs: 10, capMs: 50 },
      onRequest: (event) => events.push(event),
    });
    try {
      const querySetId = SANDBOX_IDS.sets.main;
      await client.get(catalogEndpoints.brands, {});
      await client.get(catalogEndpoints.querySets, { brandId: SANDBOX_IDS.brands.northwind });
      await client.get(catalogEndpoints.details, { querySetId });
      await client.get(catalogEndpoints.runs, { querySetId });
      await Promise.all(metricEndpoints.map((endpoint) => client.get(endpoint, { querySetId })));
    } finally {
      await client.close();
    }
    // Every one of the 38 endpoints ended with a valid payload (get() validates), after retries.
    const ok = events.filter((e) => e.outcome === 'ok').map((e) => e.endpoint);
    expect(new Set(ok)).toEqual(new Set(allEndpoints.map((e) => e.key)));
    expect(ok).toHaveLength(38);
    expect(events.filter((e) => e.outcome === 'transient').length).toBeGreaterThan(5);
    cli.child.kill('SIGTERM');
    await once(cli.child, 'exit');
  });
});
