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

  it('keeps the run label when a long brand or set name is cut, so two runs never share a file', () => {
    const brand = 'Northwind Coffee Roasters International Holding '.repeat(3);
    const set = 'Coffee buyers in Germany, Austria and Switzerland — long tail queries '.repeat(2);
    const w46 = safeFileName([brand, set, 'W46 2026']);
    const w47 = safeFileName([brand, set, 'W47 2026']);
    expect(w46).not.toBe(w47);
    expect(w46).toMatch(/^Northwind Coffee Roasters .* - W46 2026$/);
    expect(Buffer.byteLength(w46)).toBeLessThanOrEqual(150);
  });
});
