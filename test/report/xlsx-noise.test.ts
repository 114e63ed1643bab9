import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadRows } from '../../src/api/metric-rows.js';
import { metricName } from '../../src/insight/metric-names.js';
import { runSamples } from '../../src/insight/sample-sizes.js';
import type { DeltaView } from '../../src/report/format.js';
import { buildReportModel } from '../../src/report/model/index.js';
import { renderWorkbook } from '../../src/report/xlsx.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import type { StoredSnapshot } from '../../src/store/snapshots.js';
import { runBefore } from './earlier-run.js';
import { everySandboxSet } from './sandbox-snapshot.js';

/**
 * The workbook says whether a change matters, and names what people read: each judged change has its
 * interval (as it is, at the level its family asks for), n, p, q and verdict beside it — the verdicts
 * of the run's PDF, whose family it shares — and the Data sheet has the readable name of every row,
 * in the workbook's locale. Read back with exceljs.
 */

const meta = { generatedAt: new Date('2026-11-22T03:00:00Z'), version: '9.9.9', account: 'acme' };
const MACHINE_PATH = /^[a-z]+\.[a-z-]+(\.|$)/;

let sandbox: Sandbox;
/** Every sandbox set with a run, newest run each; `current` is the main set, 101. */
let sets: StoredSnapshot[];
let current: StoredSnapshot;

async function workbook(locale?: string, snapshot: StoredSnapshot = current): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  const buffer = await renderWorkbook(snapshot, [runBefore(snapshot)], locale ? { ...meta, locale } : meta);
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

/** Rows of the table whose header row starts with `header`, up to the first blank row. */
function tableRows(ws: ExcelJS.Worksheet, header: readonly unknown[]): unknown[][] {
  const rows: unknown[][] = [];
  let inside = false;
  ws.eachRow({ includeEmpty: true }, (r) => {
    const values = (r.values as unknown[]).slice(1);
    if (inside && (values.length === 0 || values[0] == null)) inside = false;
    else if (inside) rows.push(values);
    if (JSON.stringify(values.slice(0, header.length)) === JSON.stringify(header)) inside = true;
  });
  if (rows.length === 0) throw new Error(`no table "${header.join(' | ')}" in ${ws.name}`);
  return rows;
}

beforeAll(async () => {
  sandbox = await startSandbox({ hostile: true });
  sets = await everySandboxSet(sandbox);
  current = sets.find((s) => s.querySet.id === 101)!;
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
});

describe('the workbook and the noise model', () => {
  it('puts the interval, n, p, q and verdict beside each judged change, as the PDF judges it', async () => {
    const book = await workbook();
    const ws = book.getWorksheet('Presence')!;
    const header = row(ws, 'Metric');
    expect(header.slice(0, 8)).toEqual([
      'Metric',
      'Value',
      'Change',
      'Interval (pts)',
      'n',
      'p',
      'q',
      'Verdict',
    ]);
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
    const pdf = buildReportModel(current, [runBefore(current)], { ...meta, locale: 'en-US' }).presence.gross;
    if (!pdf.available) throw new Error('no gross presence');
    const [, value, change, interval, count, p, q, verdict] = row(ws, 'Gross presence');
    // The change is the stored runs' difference (here the run before as the payload's delta describes it).
    expect(value).toBe(gross.current);
    expect(change as number).toBeCloseTo(gross.delta, 9);
    expect(interval).toBe(pdf.kpi.delta.interval);
    expect(interval).not.toMatch(/±/);
    expect(count).toBe(n);
    expect(verdict).toBe(pdf.kpi.delta.verdict === 'likely' ? 'likely change' : 'no clear change');
    // q is p adjusted among the report's 2 headline figures: at least p, likely only at q ≤ 2.5 %.
    expect(q as number).toBeGreaterThanOrEqual(p as number);
    expect((q as number) <= 0.025).toBe(verdict === 'likely change');

    // Life is a score, not a share of answers: no interval, no n, and never called likely.
    const life = row(book.getWorksheet('Life')!, 'Life');
    expect([3, 4, 5, 6].map((i) => life[i] ?? null)).toEqual([null, null, null, null]);
    expect(life[7]).toBe('not judged');
    // The workbook says once how many changes it judged together, as the PDF does.
    const about = row(book.getWorksheet('About')!, 'Changes judged');
    const judged = buildReportModel(current, [runBefore(current)], meta).judged;
    expect(about[1]).toMatch(
      new RegExp(`^${judged.size} changes judged together; \\d+ likely, at a false discovery rate of 5%\\.`),
    );
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
});

/**
 * Every table with a change column, on every sheet, in every sandbox set: the five cells beside the
 * change are the PDF's verdict for the same number (interval, n, p, q and the verdict for a judged
 * share of answers; blanks and "not judged" for Life, counts, per-intent shares and the like).
 */
/** Every headline card of a PDF model (anything with an endpoint key and a judged delta), once per key. */
function headlineCards(model: unknown): { key: string; delta: DeltaView }[] {
  const found = new Map<string, { key: string; delta: DeltaView }>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const o = node as { key?: unknown; delta?: unknown };
      if (typeof o.key === 'string' && o.delta && typeof o.delta === 'object' && 'text' in o.delta)
        found.set(o.key, { key: o.key, delta: o.delta as DeltaView });
      Object.values(node).forEach(walk);
    }
  };
  walk(model);
  return [...found.values()];
}

describe('the interval and n beside every change, in every sandbox set', () => {
  const WORD = { likely: 'likely change', unclear: 'no clear change', unknown: 'not judged' } as const;
  /** The PDF's verdict on a delta (format.ts `DeltaView.verdict`) as the workbook's word. */
  const pdfWord = (delta: DeltaView) => WORD[delta.verdict ?? 'unknown'];
  // exceljs leaves empty cells as holes, which `map` would skip: read each index.
  const cells = (row: unknown[], from: number) => [0, 1, 2, 3, 4].map((i) => row[from + i] ?? null);
  const NOT_JUDGED = [null, null, null, null, WORD.unknown];

  it('judges each change as the PDF shows it', async () => {
    expect(sets.length).toBeGreaterThan(1);
    const seen = { judged: 0, unknownScores: 0, rows: 0 };
    for (const snapshot of sets) {
      const set = `set ${snapshot.querySet.id}`;
      const book = await workbook(undefined, snapshot);
      const pdf = buildReportModel(snapshot, [runBefore(snapshot)], { ...meta, locale: 'en-US' });
      const samples = runSamples(
        Object.entries(snapshot.payloads).flatMap(([key, p]) =>
          p.error === null && p.data != null ? payloadRows(key, p.data) : [],
        ),
      );
      /** A judged share's cells as the PDF's delta has them: its interval, n and verdict (p, q numbers). */
      const share = (endpoint: string, field: string, dimension: string, id: number, delta: DeltaView) => {
        const n = samples.of({ endpoint, field, dimension, dimension_id: String(id) })?.n ?? null;
        return delta.interval ? [delta.interval, n, 'p', 'q', pdfWord(delta)] : NOT_JUDGED;
      };
      const payload = <T>(key: string) => snapshot.payloads[key]!.data as T;
      const check = (where: string, got: unknown[], want: unknown[], pdfDelta: DeltaView) => {
        const [interval, n, p, q, verdict] = got;
        expect([interval, n, verdict], `${set} ${where}`).toEqual([want[0], want[1], want[4]]);
        expect(verdict, `${set} ${where}: the PDF's verdict`).toBe(pdfWord(pdfDelta));
        seen.rows += 1;
        if (typeof interval === 'string') {
          expect(interval, where).not.toMatch(/±/);
          expect(q as number, where).toBeGreaterThanOrEqual(p as number);
          seen.judged += 1;
        } else expect([p, q], where).toEqual([null, null]);
        if (verdict === WORD.unknown && interval === null && n === null) seen.unknownScores += 1;
      };

      // Presence: the weighted share by engine; weighted and gross by intent.
      const presence = book.getWorksheet('Presence')!;
      const byEngine = payload<{
        engines: { id: number; label: string }[];
        presenceByEngine: Record<string, { weighted: number; delta: number }>;
      }>('presence.by-engine');
      const engineRows = tableRows(presence, ['Engine', 'Weighted presence', 'Gross presence', 'Change']);
      expect(engineRows.length, set).toBe(byEngine.engines.length);
      if (!pdf.presence.byEngine.available) throw new Error(`${set}: no PDF presence by engine`);
      for (const row of pdf.presence.byEngine.rows) {
        const engine = byEngine.engines.find((e) => e.label === row.engine.label)!;
        const v = byEngine.presenceByEngine[String(engine.id)]!;
        const got = cells(engineRows.find((r) => r[0] === engine.label)!, 4);
        expect(v.delta, set).toBeTypeOf('number');
        const want = share('presence.by-engine', 'weighted', 'engine', engine.id, row.delta);
        check(`presence by engine ${engine.label}`, got, want, row.delta);
      }
      const byIntent = payload<{
        intents: { id: number; label: string }[];
        presenceByIntent: Record<string, { weighted: number; gross: number; deltaW: number; deltaG: number }>;
      }>('presence.by-intent');
      const intentRows = tableRows(presence, [
        'Intent',
        'Stage',
        'ICV',
        'Weighted presence',
        'Gross presence',
      ]);
      expect(intentRows.length, set).toBe(byIntent.intents.length);
      if (!pdf.presence.byIntent.available) throw new Error(`${set}: no PDF presence by intent`);
      for (const row of pdf.presence.byIntent.rows) {
        const intent = byIntent.intents.find((i) => i.label === row.label)!;
        const cellsOf = intentRows.find((r) => r[0] === intent.label)!;
        // The payloads give no answers per intent: never judged, in the workbook or the PDF.
        check(`presence by intent ${intent.label} (weighted)`, cells(cellsOf, 6), NOT_JUDGED, row.deltaW);
        check(`presence by intent ${intent.label} (gross)`, cells(cellsOf, 12), NOT_JUDGED, row.deltaG);
      }

      // Times cited is a count: its change is not judged, in the workbook or the PDF.
      const positionRows = tableRows(presence, ['Engine', 'Times cited', 'Change in times cited']);
      if (!pdf.presence.positionsByEngine.available) throw new Error(`${set}: no PDF positions by engine`);
      for (const row of pdf.presence.positionsByEngine.rows)
        check(
          `times cited by ${row.engine.label}`,
          cells(positionRows.find((r) => r[0] === row.engine.label)!, 3),
          NOT_JUDGED,
          row.deltaTimesCited,
        );
      check(
        'times cited, all engines',
        cells(positionRows.find((r) => r[0] === 'All engines')!, 3),
        NOT_JUDGED,
        pdf.presence.positionsByEngine.totals.deltaTimesCited,
      );

      // Life is a score, not a share of answers: no interval, never "likely change".
      const life = book.getWorksheet('Life')!;
      for (const [what, header, at, model] of [
        ['life by engine', ['Engine', 'Life', 'Change'], 3, pdf.life.byEngine],
        ['life by intent', ['Intent', 'Stage', 'ICV', 'Life', 'Change'], 5, pdf.life.byIntent],
      ] as const) {
        const rows = tableRows(life, header);
        if (!model.available) throw new Error(`${set}: no PDF ${what}`);
        for (const row of model.rows)
          check(
            `${what} ${row.label}`,
            cells(rows.find((r) => r[0] === row.label)!, at),
            NOT_JUDGED,
            row.delta,
          );
      }

      // Citations of a source are counts; the PDF shows the top sources, the workbook all of them.
      const sourceRows = tableRows(book.getWorksheet('Scout')!, ['Source', 'Citations', 'Engines']);
      expect(sourceRows.length).toBe(
        payload<{ sourcesDetail: unknown[] }>('scout.source-landscape').sourcesDetail.length,
      );
      for (const row of sourceRows) expect(cells(row, 6), `${set} source ${row[0]}`).toEqual(NOT_JUDGED);
      if (!pdf.scout.sources.available) throw new Error(`${set}: no PDF sources`);
      for (const row of pdf.scout.sources.rows)
        check(
          `source ${row.name}`,
          cells(sourceRows.find((r) => r[0] === row.name)!, 6),
          NOT_JUDGED,
          row.delta,
        );

      // Key figures: each headline card of the PDF against the one row of its endpoint with a change.
      const figures = ['Overview', 'Presence', 'Life', 'Gravity', 'Scout', 'Market'].flatMap((name) =>
        tableRows(book.getWorksheet(name)!, ['Metric', 'Value', 'Change', 'Interval (pts)']).filter(
          (r) => r[2] != null,
        ),
      );
      let cards = 0;
      for (const card of headlineCards(pdf)) {
        const rows = figures.filter((r) => r.at(-1) === card.key);
        if (rows.length !== 1) continue;
        expect(cells(rows[0]!, 3)[4], `${set} key figure ${card.key}: the PDF's verdict`).toBe(
          pdfWord(card.delta),
        );
        cards += 1;
      }
      expect(cards, set).toBeGreaterThanOrEqual(8);
    }
    expect(seen.rows).toBeGreaterThan(50);
    // A judged share shows its interval and n; a score or a per-intent share blanks and "not judged".
    expect(seen.judged).toBeGreaterThan(0);
    expect(seen.unknownScores).toBeGreaterThan(0);
  });

  it('follows every change column with the five cells, on every sheet, with unique headers per table', async () => {
    const CHANGE = /^Change/;
    for (const snapshot of sets) {
      const buffer = await renderWorkbook(snapshot, [runBefore(snapshot)], meta);
      const zip = await JSZip.loadAsync(buffer);
      const tables = Object.keys(zip.files).filter((f) => /^xl\/tables\/table\d+\.xml$/.test(f));
      expect(tables.length).toBeGreaterThan(10);
      const withChange = new Set<string>();
      for (const file of tables) {
        const xml = (await zip.file(file)!.async('string')) as string;
        const name = /<table [^>]*\bname="([^"]+)"/.exec(xml)?.[1];
        const headers = [...xml.matchAll(/<tableColumn [^>]*\bname="([^"]*)"/g)].map((m) => m[1]!);
        // Excel refuses a file whose table repeats a header.
        expect(new Set(headers).size, `${name}: ${headers.join(' | ')}`).toBe(headers.length);
        headers.forEach((header, i) => {
          // The long Data sheet holds delta fields as rows, not a change column.
          if (!CHANGE.test(header)) return;
          withChange.add(name ?? file);
          expect(
            headers.slice(i + 1, i + 6).map((h) => h?.split(' · ')[0]),
            `${name}: ${header}`,
          ).toEqual(['Interval (pts)', 'n', 'p', 'q', 'Verdict']);
        });
      }
      expect([...withChange].sort(), `set ${snapshot.querySet.id}`).toEqual([
        'Gravity_KeyFigures',
        'Life_ByEngine',
        'Life_ByIntent',
        'Life_KeyFigures',
        'Market_KeyFigures',
        'Overview_KeyFigures',
        'Presence_ByEngine',
        'Presence_ByIntent',
        'Presence_KeyFigures',
        'Presence_PositionByEngine',
        'Scout_KeyFigures',
        'Scout_Sources',
      ]);
    }
  });
});
