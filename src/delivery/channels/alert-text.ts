import { comparedWithText } from '../../alerts/compared-with-text.js';
import type { ChannelAlert } from './types.js';

/**
 * The provider-independent wording of an alert, so Slack, Teams and the email say the same thing:
 * a title, the set and the runs compared, and per firing its headline, `before → after (change)`
 * in the metric's unit (the evaluator formats them) and the quoted claims of new errors.
 */
export function alertTitle(alert: ChannelAlert): string {
  return `Alert: ${alert.alert} (${alert.brand})`;
}

export function alertContext(alert: ChannelAlert): string {
  return `${alert.querySet.name} · query set ${alert.querySet.id} · run ${alert.run.label} compared with ${comparedWithText(alert, 'the run before')}`;
}

/** One firing as plain lines (untrusted text; each sender places it where no markup is read). */
export function firingLines(firing: ChannelAlert['firings'][number]): string[] {
  const lines: string[] = [];
  if (firing.before !== undefined && firing.after !== undefined) {
    lines.push(
      `${firing.before} → ${firing.after}${firing.change !== undefined ? ` (${firing.change})` : ''}`,
    );
  }
  for (const error of firing.errors ?? []) {
    const claims = error.claims.map((c) => `"${c}"`).join('; ') || '(no claim text)';
    lines.push(`Claim: ${claims}`, `Correct answer: ${error.correct}`);
    if (error.engines.length > 0) lines.push(`Engines repeating it: ${error.engines.join(', ')}`);
  }
  return lines;
}
