import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets, REDACTED, registerSecret, scrub } from '../../src/secrets.js';

afterEach(() => clearSecrets());

const SECRET = 'sk-live-8f2a91c3d4e5';

describe('secrets in base64', () => {
  it('are scrubbed wherever they sit in an encoded string (HTTP Basic, SMTP AUTH PLAIN, any prefix length)', () => {
    registerSecret(SECRET);
    const samples = [
      Buffer.from(SECRET).toString('base64'),
      Buffer.from(`reportd:${SECRET}`).toString('base64'), // Authorization: Basic
      Buffer.from(`\0reportd\0${SECRET}`).toString('base64'), // AUTH PLAIN
      Buffer.from(`x${SECRET}yz`).toString('base64url'),
    ];
    for (const encoded of samples) {
      const line = `C: AUTH PLAIN ${encoded}`;
      const scrubbed = scrub(line);
      expect(scrubbed).toContain(REDACTED);
      // What is left of the encoded text no longer decodes to the secret, nor to most of it.
      const left = scrubbed.slice('C: AUTH PLAIN '.length).split(REDACTED);
      for (const part of left) expect(part.length).toBeLessThanOrEqual(12);
      expect(Buffer.from(scrubbed.replace(REDACTED, ''), 'base64').toString('latin1')).not.toContain(
        SECRET.slice(4, 12),
      );
    }
  });

  it('leave ordinary base64 alone', () => {
    registerSecret(SECRET);
    const other = Buffer.from('a different value entirely').toString('base64');
    expect(scrub(other)).toBe(other);
  });
});
