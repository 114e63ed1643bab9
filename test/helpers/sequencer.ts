import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest first, across both projects: with more workers than cores (vitest.config.ts), the files
 * that mostly wait (a 2-minute store outage, lease expiries, cron slots, a faked clock) start at
 * once and the short files fill the cores around them, instead of the longest starting last and
 * running alone at the end. vitest's own order puts every postgres file before every sqlite file,
 * and on a fresh clone (no results cache) keeps the glob's order.
 *
 * A file's expected seconds: this machine's last run (vitest's results cache) when there is one, else
 * test/slow-files.json (the files over 4 s in a CI run, by `project:path`; stale figures only change
 * the order, never what runs), else its size, so a new large file still goes before small ones.
 * Refresh the list with `REPORTD_TEST_DURATIONS=test/slow-files.json npm test`.
 */
const hints: Record<string, number> = JSON.parse(
  readFileSync(new URL('../slow-files.json', import.meta.url), 'utf8'),
);

/** A file as the hints and the results cache name it: `project:path from the root`. */
export function fileKey(project: string, root: string, moduleId: string): string {
  return `${project}:${relative(root, moduleId)}`;
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const expected = new Map<TestSpecification, number>();
    for (const spec of files) {
      const key = fileKey(spec.project.name, root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(key)?.duration;
      // Seconds from either source; a file with neither ranks by size, below every known file.
      const seconds = cached !== undefined ? cached / 1000 : hints[key];
      expected.set(spec, seconds ?? statSync(spec.moduleId).size / 1e9);
    }
    return [...files].sort((a, b) => expected.get(b)! - expected.get(a)!);
  }
}
