import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { prettyDestination } from '../../src/log-pretty.js';
import { clearSecrets, registerSecret, scrub } from '../../src/secrets.js';

afterEach(() => clearSecrets());

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ destination, level: 'debug' }) };
}

describe('secret handling', () => {
  it('scrubs registered secrets from any text, URL-encoded too', () => {
    registerSecret('s3cr3t/value+x');
    expect(scrub('token s3cr3t/value+x in text')).toBe('token [redacted] in text');
    expect(scrub('smtp://u:s3cr3t%2Fvalue%2Bx@host')).toBe('smtp://u:[redacted]@host');
  });

  it('never writes a secret to the log, by field name or by value', () => {
    registerSecret('hunter2-long-secret');
    const { lines, logger } = capture();
    logger.info({ account: { name: 'acme', api_secret: 'hunter2-long-secret' } }, 'loaded');
    logger.warn('failed with smtp://user:hunter2-long-secret@mail');
    logger.info({ headers: { 'x-api-secret': 'other-secret-value' } }, 'request');
    const text = lines.join('');
    expect(text).toContain('loaded');
    expect(text).not.toContain('hunter2-long-secret');
    expect(text).not.toContain('other-secret-value');
  });

  // The logger scrubs the serialised JSON line, where `"` and `\` appear escaped.
  const QUOTED = 'se"cr\\et-ABCD';

  it('scrubs a secret holding a quote and a backslash from JSON log lines', () => {
    registerSecret(QUOTED);
    const { lines, logger } = capture();
    logger.warn({ detail: `reply: ${QUOTED}` }, `login with ${QUOTED} refused`);
    const text = lines.join('');
    const entry = JSON.parse(text);
    expect(entry.msg).toBe('login with [redacted] refused');
    expect(entry.detail).toBe('reply: [redacted]');
    expect(text).not.toContain('se\\"cr');
  });

  it('scrubs it from pretty log lines too', () => {
    registerSecret(QUOTED);
    const out: string[] = [];
    const logger = createLogger({ destination: prettyDestination({ write: (t: string) => out.push(t) }) });
    logger.error({ detail: QUOTED, err: new Error(`bad password ${QUOTED}`) }, `login with ${QUOTED}`);
    const text = out.join('');
    expect(text).toMatch(
      /ERROR login with \[redacted\] {2}detail=\[redacted\]\n {4}Error: bad password \[redacted\]/,
    );
    expect(text).not.toContain('se"cr');
    expect(text).not.toContain('ABCD');
  });

  it('scrubs the longest secret first: a shorter one that is its prefix leaves no tail in clear', () => {
    registerSecret('abcd-1234');
    registerSecret('abcd-1234-long-tail');
    expect(scrub('x abcd-1234-long-tail y abcd-1234 z')).toBe('x [redacted] y [redacted] z');
    registerSecret('sh"rt');
    registerSecret('sh"rt-and-longer');
    const { lines, logger } = capture();
    logger.info(`key sh"rt-and-longer`);
    expect(JSON.parse(lines.join('')).msg).toBe('key [redacted]');
  });
});
