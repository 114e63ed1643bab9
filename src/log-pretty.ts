import type { DestinationStream } from 'pino';
import { printable } from './printable.js';

/**
 * Log lines for a person at a terminal: `12:00:01.250 INFO  daemon started  next={…}`. The daemon
 * writes JSON lines for log collectors and switches to this only when stderr is a TTY. It formats
 * lines pino has already produced, so redaction and secret scrubbing (src/log.ts) have happened by
 * the time a line gets here; nothing is re-read from the objects that were logged.
 */

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

interface LoggedError {
  type?: string;
  message?: string;
  stack?: string;
}

export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const { level, time, msg, err, ...fields } = entry;
  const clock = typeof time === 'number' ? new Date(time).toISOString().slice(11, 23) : '';
  const name = typeof level === 'number' ? (LEVELS[level] ?? String(level)) : String(level ?? '');
  // Logged values include API text (set names, error messages): control characters in them must not
  // reach the terminal. The JSON form needs no such care, JSON escapes them.
  const extra = Object.entries(fields)
    .map(([key, value]) => `${key}=${printable(typeof value === 'string' ? value : JSON.stringify(value))}`)
    .join(' ');
  let out = [clock, name.padEnd(5), printable(String(msg ?? ''))].filter(Boolean).join(' ');
  if (extra) out += `  ${extra}`;
  const error = err as LoggedError | undefined;
  if (error && typeof error === 'object') {
    // The stack is what a person debugging wants; indented so the next entry stands out.
    const detail = error.stack ?? `${error.type ?? 'Error'}: ${error.message ?? ''}`;
    out += `\n${printable(detail, { multiline: true }).replace(/^/gm, '    ')}`;
  }
  return `${out}\n`;
}

/** A pino destination writing `formatLogLine` output to `out` (stderr in the daemon). */
export function prettyDestination(out: { write(text: string): unknown }): DestinationStream {
  return { write: (line: string) => void out.write(formatLogLine(line)) };
}
