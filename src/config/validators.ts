import { validate, validateDetailed } from 'node-cron';
import { closest } from './suggest.js';

/**
 * Field checks the schema runs at load time, so a schedule that can never fire or a zone the
 * scheduler would reject is refused when the config is read, not hours later when a job is due.
 */

/** Month and weekday names, which may contain the letters of the unsupported extensions. */
const NAMES = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|sun|mon|tue|wed|thu|fri|sat)[a-z]*\b/gi;

const CRON_FIELDS = 'minute hour day-of-month month day-of-week (6 fields: seconds first)';

/** Why `expression` is not a cron expression node-cron accepts, or undefined when it is one. */
export function cronProblem(expression: string): string | undefined {
  if (validate(expression)) {
    // node-cron also takes @nicknames and the L, W, # and ? extensions; reportd's scheduler
    // (src/daemon/cron-time.ts) computes next runs itself and reads plain fields only.
    const extension = expression.replace(NAMES, '').match(/[@LW#?]/i)?.[0];
    return extension === undefined
      ? undefined
      : `invalid cron expression "${expression}": "${extension}" is not supported (use plain fields: numbers, names, *, ranges, lists and steps)`;
  }
  const detail = validateDetailed(expression).errors[0];
  const reason =
    detail === undefined
      ? 'not accepted'
      : detail.field === 'expression'
        ? detail.message
        : `${fieldLabel(detail.field)} "${detail.value ?? ''}" is out of range or malformed`;
  return `invalid cron expression "${expression}": ${reason} (expected ${CRON_FIELDS})`;
}

const FIELD_LABELS: Record<string, string> = {
  second: 'second',
  minute: 'minute',
  hour: 'hour',
  dayOfMonth: 'day-of-month',
  month: 'month',
  dayOfWeek: 'day-of-week',
};

function fieldLabel(field: string): string {
  return FIELD_LABELS[field] ?? field;
}

/** Why `zone` is not an IANA time zone this Node knows, or undefined when it is one. */
export function timezoneProblem(zone: string): string | undefined {
  try {
    // Accepts every zone ICU knows, including aliases like UTC that supportedValuesOf omits.
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return undefined;
  } catch {
    const guess = closest(zone, Intl.supportedValuesOf('timeZone'));
    return (
      `unknown time zone "${zone}"` +
      (guess ? ` (did you mean ${guess}?)` : ' (use an IANA name like Europe/Berlin or UTC)')
    );
  }
}

/**
 * An address as mail clients write it: `ops@example.com` or `Ops Team <ops@example.com>`. Loose on
 * purpose: the SMTP server is the real judge; this only catches a missing @ or a stray comma.
 */
export const EMAIL_ADDRESS =
  /^(?:[^<>@,;]*<[^\s<>@,;]+@[^\s<>@,;]+\.[^\s<>@,;]+>|[^\s<>@,;]+@[^\s<>@,;]+\.[^\s<>@,;]+)$/;
