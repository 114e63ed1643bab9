import type { Composer } from './message.js';
import { type ReportComposerOptions, reportComposer } from './report.js';

/**
 * A digest row (`covers` set, outbox/digest-rows.ts): the renderer builds one report over the covered
 * runs, so its message is a report's; kept as its own composer so the table of kinds reads whole and
 * a digest that needs its own spelling (a summary card) has one place to get it.
 */
export function digestComposer(options: ReportComposerOptions): Composer {
  return reportComposer(options);
}
