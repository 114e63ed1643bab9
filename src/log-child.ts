import type { Logger } from './log.js';

/** The levels a per-request logger writes (see `childOnUse`). */
export interface LineWriter {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * `logger.child(bindings)`, made when it first writes a line at a level `logger` has on. pino runs
 * the redaction paths over a child's bindings as it is made: one child per API request and per
 * payload cost a sync about 2 % of its CPU, for lines (debug, failures) mostly never written.
 */
export function childOnUse(logger: Logger, bindings: Record<string, unknown>): LineWriter {
  let child: Logger | undefined;
  const write = (level: 'debug' | 'warn' | 'error') => (fields: object, message: string) => {
    if (!logger.isLevelEnabled(level)) return;
    child ??= logger.child(bindings);
    child[level](fields, message);
  };
  return { debug: write('debug'), warn: write('warn'), error: write('error') };
}
