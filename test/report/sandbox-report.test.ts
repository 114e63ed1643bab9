import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleFor } from '../../src/api/field-units.js';
import { formatValue } from '../../src/report/format.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel, PDF_ENDPOINTS } from '../../src/report/model/index.js';
import { PdfRenderer } from '../../src/report/pdf.js';
import { HOSTILE } from '../../src/sandbox/dataset.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pdfTextOf } from './helpers.js';
import { sandboxSnapshot } from './sandbox-snapshot.js';

const meta = { generatedAt: new Date('2026-11-16T06:00:00Z'), version: '0.1.0' };
const NORTHWIND = { id: 1, name: 'Northwind Coffee' };
let dir: string;
let sandbox: Sandbox;
let renderer: PdfRenderer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-sandbox-report-'));
  sandbox = await startSandbox();
  renderer = new PdfRenderer();
});

afterAll(async () => {
  await renderer.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const notes = (value: unknown): string[] => {
  const found: string[] = [];
  JSON.stringify(value, (_k, v) => {
    if (v && typeof v === 'object' && (v as { available?: unknown }).available === false)
      found.push((v as { note: string }).note);
    return v;
  });
  return found;
};

describe('report of a sandbox snapshot', () => {
  it('reads all 34 payloads as the API serves them, with every card available', async () => {
    const snapshot = await sandboxSnapshot(sandbox, 101, NORTHWIND);
    const model = buildReportModel(snapshot, [], meta);
    expect(model.consumed).toEqual([...PDF_ENDPOINTS].sort());
    expect(notes(model)).toEqual([]);

    const gross = snapshot.payloads['presence.gross']!.data as { current: number };
    const shares = snapshot.payloads['overview.competitive-context']!.data as { shares: { share: number }[] };
    const text = pdfTextOf(await renderer.render(renderReportHtml(model).html), dir);
    expect(text).toContain('Northwind Coffee');
    expect(text).toContain(snapshot.run.display_name);
    expect(text).toContain(formatValue(gross.current, ruleFor('presence.gross')));
    // Fractions on the wire show as percents: no "0.2%" for a 0.2 share.
    const top = Math.max(...shares.shares.map((s) => s.share));
    expect(top).toBeLessThanOrEqual(1);
    expect(text).toContain(formatValue(top, ruleFor('overview.competitive-context', 'share')));
  });

  it('shows the hostile data set as text and loads nothing', async () => {
    const hostile = await startSandbox({ hostile: true });
    try {
      const snapshot = await sandboxSnapshot(hostile, 101, NORTHWIND);
      const doc = renderReportHtml(buildReportModel(snapshot, [], meta));
      expect(doc.html).not.toMatch(/<script|<img/i);
      const text = pdfTextOf(await renderer.render(doc.html, doc), dir);
      expect(text).toContain('<script>alert(1)</script>');
      expect(text).toContain(HOSTILE.competitorName);
    } finally {
      await hostile.close();
    }
  });
});
