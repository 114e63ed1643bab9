import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * `reportd sandbox --publish-every` and SIGUSR2 (a real process): new runs appear over the API, and
 * their numbers carry the movement alerts watch for (a presence drop, a new error register entry).
 */

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startSandboxCli(args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'sandbox', '--port', '0', ...args],
    {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!check()) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${what}; output:\n${stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, output: () => stdout, until };
}

const headers = { 'X-Api-Key': 'sandbox-key', 'X-Api-Secret': 'sandbox-secret' };
// biome-ignore lint/suspicious/noExplicitAny: API payloads read loosely; the assertions say what matters.
const get = async (url: string) => (await fetch(url, { headers })).json() as Promise<any>;
const published = (text: string) => (text.match(/published run \d+ .* of query set 101/g) ?? []).length;

describe('reportd sandbox publishes runs with movements', () => {
  it('on SIGUSR2: a new run of set 101 with presence down and a new error register entry', async () => {
    const cli = startSandboxCli([]);
    await cli.until(() => /base URL:\s+\S+/.test(cli.output()) && cli.output().includes('USR2'), 'not ready');
    const baseUrl = /base URL:\s+(\S+)/.exec(cli.output())![1]!;
    const runsBefore = (await get(`${baseUrl}/sets/101/runs`)) as { id: number }[];
    const grossBefore = await get(`${baseUrl}/presence/sets/101/gross`);
    const errorsBefore = await get(`${baseUrl}/gravity/sets/101/error-register`);

    cli.child.kill('SIGUSR2');
    await cli.until(() => published(cli.output()) === 1, 'SIGUSR2 published nothing');
    const runsAfter = (await get(`${baseUrl}/sets/101/runs`)) as { id: number }[];
    expect(runsAfter).toHaveLength(runsBefore.length + 1);
    const gross = await get(`${baseUrl}/presence/sets/101/gross`);
    expect(gross.delta).toBeLessThanOrEqual(-5);
    expect(gross.current).toBeLessThan(grossBefore.current - 5);
    const errors = await get(`${baseUrl}/gravity/sets/101/error-register`);
    const before = new Set(errorsBefore.gravityErrors.map((e: { id: string }) => e.id));
    const fresh = errors.gravityErrors.filter((e: { id: string }) => !before.has(e.id));
    expect(fresh).toHaveLength(1);
    expect(fresh[0].wrong[0].text).toBe('Northwind Coffee is closing all of its shops this year.');
  });

  it('with --publish-every: runs keep appearing on the timer', async () => {
    const cli = startSandboxCli(['--publish-every', '1']);
    await cli.until(() => published(cli.output()) >= 2, 'the timer published fewer than 2 runs');
  });

  it('refuses a --publish-every that is not a number of seconds', async () => {
    const cli = startSandboxCli(['--publish-every', 'soon']);
    const code = await new Promise<number | null>((resolve) => cli.child.on('exit', resolve));
    expect(code).toBe(2);
  });
});
