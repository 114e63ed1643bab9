import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
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
});
