import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { holderName, isHolderGone, localHost, parseHolder, startTicks } from '../../src/queue/holder.js';

/**
 * The one holder-gone check (delivery claims, job slots, account leases), against real processes:
 * a running one, one that exited, a zombie (killed, never reaped: `kill(pid, 0)` still succeeds on
 * it), and a pid whose start time is not the holder's (the kernel reused it).
 */
let children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children = [];
});

const nameOf = (pid: number, start?: number) =>
  `${localHost()}:${pid}:abcdef${start === undefined ? '' : `@${start}`}`;

function sleeper(script: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  return new Promise((resolve) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve({ child, line: chunk.toString().trim() }));
  });
}

describe('holder gone', () => {
  it('a running process is not gone; one that exited is', async () => {
    const { child } = await sleeper('echo up; exec sleep 30');
    expect(isHolderGone(nameOf(child.pid!, startTicks(child.pid!)))).toBe(false);
    const exited = spawnSync(process.execPath, ['-e', '']).pid!;
    expect(isHolderGone(nameOf(exited))).toBe(true);
  });

  it('a zombie (exited, not reaped by its parent) is gone, though kill(pid, 0) still succeeds', async () => {
    // The background sleep's parent becomes the exec'd `sleep 30`, which never waits for it.
    const { line } = await sleeper('sleep 0.2 & echo $!; exec sleep 30');
    const zombie = Number(line);
    await expect
      .poll(() =>
        spawnSync('ps', ['-o', 'stat=', '-p', String(zombie)])
          .stdout.toString()
          .trim(),
      )
      .toMatch(/^Z/);
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(isHolderGone(nameOf(zombie))).toBe(true);
  });

  it('a pid now held by a process started at another time is gone', async () => {
    const { child } = await sleeper('echo up; exec sleep 30');
    const start = startTicks(child.pid!)!;
    expect(isHolderGone(nameOf(child.pid!, start))).toBe(false);
    expect(isHolderGone(nameOf(child.pid!, start - 1))).toBe(true);
  });

  it('never judges a holder of another host or PID namespace, or a name it did not make', () => {
    const exited = spawnSync(process.execPath, ['-e', '']).pid!;
    expect(isHolderGone(`elsewhere#4026531836:${exited}:abcdef`)).toBe(false);
    expect(isHolderGone('someone-else')).toBe(false);
    // This process, under another holder name (two workers of one process): alive.
    expect(isHolderGone(holderName())).toBe(false);
    expect(parseHolder(holderName())).toMatchObject({ host: localHost(), pid: process.pid });
  });
});
