import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { composeEmail } from '../../src/delivery/compose/email.js';
import { writeEml } from '../../src/delivery/eml.js';

const dir = mkdtempSync(join(tmpdir(), 'reportd-subject-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the subject header from API names', () => {
  it('carries no NUL, control character or bidi override, whatever the brand, set or run label holds', async () => {
    const message = await composeEmail({
      from: 'Reports <reports@example.com>',
      messageId: '<subject-1@reportd>',
      report: {
        name: 'weekly',
        email: { to: ['ceo@example.com'], subject: '{{brand}} · {{query_set}} · {{run}}' },
        max_attachment_mb: 10,
      },
      content: {
        brand: 'Acme\u202Efdp.exe',
        querySet: { id: 101, name: 'Main\u0000set\u2066x\u2069' },
        run: { id: 7, display_name: 'W14\u0007\u001b[2J' },
        kpis: [],
        summary: null,
        files: [],
      },
    } as never);
    const mail = await simpleParser(readFileSync(await writeEml(message, join(dir, 'report.eml'))));
    expect(mail.subject).toBe('Acme fdp.exe · Main set x  · W14 [2J');
    expect(mail.subject).not.toMatch(/[\u0000-\u001f\u202a-\u202e\u2066-\u2069]/);
  });
});
