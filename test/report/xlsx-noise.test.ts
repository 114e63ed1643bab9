import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadRows } from '../../src/api/metric-rows.js';
import { judgeChange } from '../../src/insight/changes.js';
import { metricName } from '../../src/insight/metric-names.js';
import { runSamples } from '../../src/insight/sample-sizes.js';
import { renderWorkbook } from '../../src/report/xlsx.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import type { StoredSnapshot } from '../../src/store/snapshots.js';
import { sandboxSnapshot } from './xlsx-snapshot.js';

/**
 * The workbook says whether a change matters, and names what people read: each headline change has
 * its 95 % interval and n beside it, as the noise model (src/insight) computes them, and the Data
 * sheet has the readable name of every row, in the workbook's locale. Read back with exceljs.
 */

const meta = { generatedAt: new Date('2026-11-22T03:00:00Z'), version: '9.9.9', account: 'acme' };
const MACHINE_PATH = /^[a-z]+\.[a-z-]+(\.|$)/;

let sandbox: Sandbox;
let current: StoredSnapshot;

async function workbook(locale?: string): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  const buffer = await renderWorkbook(current, [], locale ? { ...meta, locale } : meta);
  await book.xlsx.load(buffer as unknown as ExcelJS.Buffer);
  return book;
}

/** The cells of the row whose first cell is `label`, from column A on. */
function row(ws: ExcelJS.Worksheet, label: string): unknown[] {
  let found: unknown[] | undefined;
  ws.eachRow((r) => {
    if (!found && r.getCell(1).value === label) found = (r.values as unknown[]).slice(1);
  });
  if (!found) throw new Error(`no row "${label}" in ${ws.name}`);
  return found;
}

beforeAll(async () => {
  sandbox = await startSandbox({ hostile: true });
  current = await sandboxSnapshot(sandbox, 101);
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the workbook and the noise model', () => {
  it('puts the interval and n beside each headline change, as src/insight computes them', async () => {
    const ws = (await workbook()).getWorksheet('Presence')!;
    const header = row(ws, 'Metric');
    expect(header.slice(0, 6)).toEqual(['Metric', 'Value', 'Change', '± (95 %)', 'n', 'Significance']);
    const samples = runSamples(
      Object.entries(current.payloads).flatMap(([key, p]) =>
        p.error === null && p.data != null ? payloadRows(key, p.data) : [],
      ),
    );
    const gross = current.payloads['presence.gross']!.data as { current: number; delta: number };
    const n = samples.of({
      endpoint: 'presence.gross',
      field: 'current',
      dimension: '',
      dimension_id: null,
    })!.n;
    const judged = judgeChange(
      { value: gross.current - gross.delta, n },
      { value: gross.current, n },
      'percent',
      true,
    );
    const [, value, change, half, count, verdict] = row(ws, 'Gross presence');
    expect([value, change]).toEqual([gross.current, gross.delta]);
    expect(half).toBe(Math.round(((judged.high! - judged.low!) / 2) * 10) / 10);
    expect(count).toBe(n);
    expect(verdict).toBe(judged.significance === 'real' ? 'beyond noise' : 'within noise');

    // Life is a score, not a share of answers: no interval, no n, and never called real.
    const life = row((await workbook()).getWorksheet('Life')!, 'Life');
    expect([life[3] ?? null, life[4] ?? null, life[5]]).toEqual([null, null, 'unknown']);
  });

  it('names every row of the Data sheet as people read it, per locale, beside its ids', async () => {
    for (const [locale, gross] of [
      ['en-US', 'Gross presence'],
      ['de-DE', metricName({ endpoint: 'presence.gross', field: 'current' }, 'de-DE')],
    ] as const) {
      // The Data sheet comes last; its name is translated.
      const ws = (await workbook(locale)).worksheets.at(-1)!;
      const header = (ws.getRow(1).values as unknown[]).slice(1);
      expect(header.at(-1)).toBe('label');
      const labels: string[] = [];
      let grossLabel: unknown;
      ws.eachRow((r, i) => {
        if (i === 1) return;
        const label = r.getCell(16).value;
        expect(typeof label).toBe('string');
        labels.push(label as string);
        if (r.getCell(9).value === 'presence.gross' && r.getCell(10).value === 'current') grossLabel = label;
      });
      expect(grossLabel).toBe(gross);
      expect(labels.filter((l) => MACHINE_PATH.test(l))).toEqual([]);
    }
  });

  it('puts the interval, n and verdict beside each per-engine and per-intent change too', async () => {
    const samples = runSamples(
      Object.entries(current.payloads).flatMap(([key, p]) =>
        p.error === null && p.data != null ? payloadRows(key, p.data) : [],
      ),
    );
    const expected = (
      endpoint: string,
      field: string,
      dimension: string,
      id: number,
      value: number,
      delta: number,
    ) => {
      const n = samples.of({ endpoint, field, dimension, dimension_id: String(id) })!.n;
      const judged = judgeChange({ value: value - delta, n }, { value, n }, 'percent', true);
      return [
        Math.round(((judged.high! - judged.low!) / 2) * 10) / 10,
        n,
        judged.significance === 'real' ? 'beyond noise' : 'within noise',
      ];
    };
    const ws = (await workbook()).getWorksheet('Presence')!;
    /** Rows of the table whose header row is `header`, up to the first blank row. */
    const table = (header: unknown[]): unknown[][] => {
      const rows: unknown[][] = [];
      let inside = false;
      ws.eachRow({ includeEmpty: true }, (r) => {
        const values = (r.values as unknown[]).slice(1);
        if (inside && (values.length === 0 || values[0] == null)) inside = false;
        else if (inside) rows.push(values);
        if (JSON.stringify(values.slice(0, header.length)) === JSON.stringify(header)) inside = true;
      });
      return rows;
    };

    const byEngine = current.payloads['presence.by-engine']!.data as {
      engines: { id: number; label: string }[];
      presenceByEngine: Record<string, { weighted: number; delta: number }>;
    };
    const engineRows = table([
      'Engine',
      'Weighted presence',
      'Gross presence',
      'Change',
      '± (95 %)',
      'n',
      'Significance',
    ]);
    expect(engineRows.length).toBe(byEngine.engines.length);
    for (const engine of byEngine.engines) {
      const v = byEngine.presenceByEngine[String(engine.id)]!;
      const cells = engineRows.find((r) => r[0] === engine.label)!;
      expect(cells.slice(4, 7), engine.label).toEqual(
        expected('presence.by-engine', 'weighted', 'engine', engine.id, v.weighted, v.delta),
      );
    }

    const byIntent = current.payloads['presence.by-intent']!.data as {
      intents: { id: number; label: string }[];
      presenceByIntent: Record<string, { weighted: number; gross: number; deltaW: number; deltaG: number }>;
    };
    const intentRows = table([
      'Intent',
      'Stage',
      'ICV',
      'Weighted presence',
      'Gross presence',
      'Change (weighted)',
    ]);
    expect(intentRows.length).toBe(byIntent.intents.length);
    const verdicts = new Set<unknown>();
    for (const intent of byIntent.intents) {
      const v = byIntent.presenceByIntent[String(intent.id)]!;
      const cells = intentRows.find((r) => r[0] === intent.label)!;
      const weighted = expected('presence.by-intent', 'weighted', 'intent', intent.id, v.weighted, v.deltaW);
      const gross = expected('presence.by-intent', 'gross', 'intent', intent.id, v.gross, v.deltaG);
      expect(cells.slice(6, 9), intent.label).toEqual(weighted);
      expect(cells.slice(10, 13), intent.label).toEqual(gross);
      verdicts.add(weighted[2]).add(gross[2]);
    }
    expect(verdicts.has('within noise')).toBe(true);
  });
});
