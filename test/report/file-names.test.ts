import { describe, expect, it } from 'vitest';
import { safeFileName } from '../../src/report/file-names.js';
import { reportBaseName } from '../../src/report/render.js';
import { fixtureSnapshot } from './fixtures.js';

describe('report file names', () => {
  it('joins brand, set and run label', () => {
    expect(reportBaseName(fixtureSnapshot())).toBe('Northwind Coffee - Coffee buyers — DACH - W46 2026');
  });

  it('drops characters no file system accepts, control characters and path separators', () => {
    const name = safeFileName(['A/B\\C:D*E?F"G<H>I|J', 'tab\there\nnewline\u0000nul', '../../etc/passwd']);
    expect(name).not.toMatch(/[/\\:*?"<>|\u0000-\u001f]/);
    expect(name).toBe('A B C D E F G H I J - tab here newline nul - .. .. etc passwd');
  });

  it('never makes a hidden, empty, reserved or over-long name', () => {
    expect(safeFileName(['.hidden'])).toBe('hidden');
    expect(safeFileName(['...', '   '])).toBe('report');
    expect(safeFileName(['trailing. '])).toBe('trailing');
    expect(safeFileName(['CON'])).toBe('_CON');
    expect(safeFileName(['nul.txt'])).toBe('_nul.txt');
    const long = safeFileName(['é'.repeat(400)]);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(150);
    expect(long).toMatch(/^é+$/);
  });

  it('removes invisible direction overrides that disguise extensions', () => {
    expect(safeFileName(['invoice\u202Efdp.exe'])).toBe('invoicefdp.exe');
  });
});
