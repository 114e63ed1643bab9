import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { formatLogLine, prettyDestination } from '../../src/log-pretty.js';

/** The daemon's terminal output: readable, and still without secrets (redaction happens first). */
describe('pretty log lines', () => {
  it('shows time, level, message and fields on one line; errors with their stack below', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.parse('2026-03-30T06:00:01.250Z'),
      msg: 'delivery will be retried',
      report: 'weekly',
      attempt: 2,
    });
    expect(formatLogLine(`${line}\n`)).toBe(
      '06:00:01.250 WARN  delivery will be retried  report=weekly attempt=2\n',
    );
    const withError = formatLogLine(
      JSON.stringify({
        level: 50,
        msg: 'job failed',
        err: { type: 'Error', message: 'boom', stack: 'Error: boom\n  at x' },
      }),
    );
    expect(withError).toBe('ERROR job failed\n    Error: boom\n      at x\n');
    expect(formatLogLine('not json')).toBe('not json\n');
  });

  it('prints no control character from logged API text, which could drive the terminal', () => {
    const line = JSON.stringify({ level: 30, msg: 'set \u001b[2Jgone', name: 'Evil\u001b]0;pwned\u0007' });
    const out = formatLogLine(line);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(out).toBe('INFO  set \uFFFD[2Jgone  name=Evil\uFFFD]0;pwned\uFFFD\n');
  });

  it('goes through the logger redaction: an SMTP password never reaches the terminal', () => {
    const out: string[] = [];
    const logger = createLogger({ destination: prettyDestination({ write: (t: string) => out.push(t) }) });
    logger.info({ smtp: { host: 'mail', password: 'hunter2-secret' } }, 'config loaded');
    expect(out.join('')).toMatch(/INFO {2}config loaded {2}smtp=\{"host":"mail","password":"\[redacted\]"\}/);
    expect(out.join('')).not.toContain('hunter2-secret');
  });
});
