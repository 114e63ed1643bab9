import { isTimeZone } from './locale-tags.js';
import { closest } from './suggest.js';

/**
 * Field checks the schema runs at load time, so a schedule that can never fire or a zone the
 * scheduler would reject is refused when the config is read, not hours later when a job is due.
 */

/** Why `zone` is not an IANA time zone this Node knows, or undefined when it is one. */
export function timezoneProblem(zone: string): string | undefined {
  if (isTimeZone(zone)) return undefined;
  const guess = closest(zone, Intl.supportedValuesOf('timeZone'));
  return (
    `unknown time zone "${zone}"` +
    (guess ? ` (did you mean ${guess}?)` : ' (use an IANA name like Europe/Berlin or UTC)')
  );
}

/**
 * An address as mail clients write it: `ops@example.com` or `Ops Team <ops@example.com>`. Loose on
 * purpose: the SMTP server is the real judge; this only catches a missing @ or a stray comma.
 */
export const EMAIL_ADDRESS =
  /^(?:[^<>@,;]*<[^\s<>@,;]+@[^\s<>@,;]+\.[^\s<>@,;]+>|[^\s<>@,;]+@[^\s<>@,;]+\.[^\s<>@,;]+)$/;
