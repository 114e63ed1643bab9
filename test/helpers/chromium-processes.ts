import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pids of live Chromium processes started with `marker` in their environment: the test's own, never
 * another helper's browser that happens to run at the same time.
 */
export function chromiumProcessesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!/chrom/i.test(cmdline)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // zombies are already dead
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
