import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';
import { fileKey } from './sequencer.js';

/**
 * Prints the five slowest files, then one plain closing line, `tests: N passed, N failed, N skipped`,
 * after vitest's own summary, so CI systems that read a runner-neutral closing line can count the
 * tests. With REPORTD_TEST_DURATIONS=<file>, writes every file over 4 s as `project:path` → seconds,
 * the hints test/helpers/sequencer.ts orders a fresh clone's run by.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but is a failure all the same.
      if (module.state() === 'failed' && ![...module.children.allTests()].length) failed++;
    }
    const timed = testModules
      .map((module) => ({
        key: fileKey(module.project.name, module.project.config.root, module.moduleId),
        seconds: Math.round(module.diagnostic().duration / 1000),
      }))
      .sort((a, b) => b.seconds - a.seconds);
    const out = process.env.REPORTD_TEST_DURATIONS;
    if (out) {
      const slow = Object.fromEntries(
        timed.filter((file) => file.seconds >= 4).map((file) => [file.key, file.seconds]),
      );
      writeFileSync(out, `${JSON.stringify(slow, null, 2)}\n`);
    }
    const slowest = timed.slice(0, 5).map((file) => `  ${file.seconds} s  ${file.key}`);
    if (timed.length > 5) process.stdout.write(`\nslowest files:\n${slowest.join('\n')}\n`);
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
