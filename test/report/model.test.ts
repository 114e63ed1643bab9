import { describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { buildReportModel, PDF_ENDPOINTS } from '../../src/report/model/index.js';
import { XLSX_ENDPOINTS } from '../../src/report/xlsx.js';
import { fixtureSnapshot } from './fixtures.js';

const meta = { generatedAt: new Date('2026-11-16T06:00:00Z'), version: '0.1.0' };
const unavailableNotes = (value: unknown): string[] => {
  const notes: string[] = [];
  JSON.stringify(value, (_key, v) => {
    if (v && typeof v === 'object' && (v as { available?: unknown }).available === false)
      notes.push((v as { note: string }).note);
    return v;
  });
  return notes;
};

describe('report model', () => {
  it('uses every metric endpoint of the catalog in the PDF or the workbook', () => {
    const keys = metricEndpoints.map((endpoint) => endpoint.key);
    const shown = new Set([...PDF_ENDPOINTS, ...XLSX_ENDPOINTS]);
    expect(keys.filter((key) => !shown.has(key))).toEqual([]);
  });

  it('actually reads every payload PDF_ENDPOINTS claims', () => {
    const model = buildReportModel(fixtureSnapshot(), [], meta);
    expect(model.consumed).toEqual([...PDF_ENDPOINTS].sort());
    expect(unavailableNotes(model)).toEqual([]);
  });

  it('turns a missing, failed or invalid payload into a visible note, not a crash', () => {
    const model = buildReportModel(
      fixtureSnapshot({
        payloads: {
          'presence.gross': undefined,
          'life.stance-mix': { data: null, error: 'TransientApiError: socket hang up' },
          'gravity.error-register': { data: { engines: 'nope' }, error: 'engines: expected array' },
          'market.data': { data: { measurements: [] }, error: null },
        },
      }),
      [],
      meta,
    );
    expect(model.presence.gross).toMatchObject({
      available: false,
      note: 'Data unavailable — Gross presence: not in this snapshot',
    });
    expect(model.life.stanceMix).toMatchObject({
      available: false,
      note: expect.stringContaining('socket hang up'),
    });
    expect(model.gravity.errors).toMatchObject({
      available: false,
      note: expect.stringContaining('invalid payload (engines'),
    });
    expect(model.market.metrics.available).toBe(false);
    expect(unavailableNotes(model)).toHaveLength(4);
    // Everything else still renders.
    expect(model.presence.weighted.available).toBe(true);
  });

  it('survives a snapshot with no payloads at all', () => {
    const empty = fixtureSnapshot();
    empty.payloads = {};
    empty.querySet.details = null;
    const model = buildReportModel(empty, [], meta);
    expect(model.cover.engines).toEqual([]);
    expect(unavailableNotes(model).length).toBeGreaterThanOrEqual(30);
  });

  it('fills a sparkline from earlier snapshots when the payload has no history', () => {
    const old = fixtureSnapshot({ id: 1, runId: 1, run: 'W40 2026' });
    const previous = fixtureSnapshot({ id: 2, runId: 2, run: 'W42 2026' });
    (previous.payloads['life.kpi']!.data as { current: number }).current = 60;
    (old.payloads['life.kpi']!.data as { current: number }).current = 58;
    const current = fixtureSnapshot();
    (current.payloads['life.kpi']!.data as { history: number[]; historyLabels: string[] }).history = [];
    (current.payloads['life.kpi']!.data as { history: number[]; historyLabels: string[] }).historyLabels = [];
    const card = buildReportModel(current, [current, previous, old], meta).life.kpis[0];
    expect(card?.available && card.kpi.history).toEqual([58, 60]);
    expect(card?.available && card.kpi.historyLabels).toEqual(['W40 2026', 'W42 2026']);
  });

  it('keeps API text as text and engine colors only when they are real hex colors', () => {
    const snapshot = fixtureSnapshot();
    (snapshot.payloads['overview.summary']!.data as { content: string }).content =
      'Line <b>one</b>\nline two\n\n\nPara two';
    const engines = (snapshot.payloads['presence.by-engine']!.data as { engines: { color: string }[] })
      .engines;
    engines[0]!.color = 'red;background:url(http://x)';
    const model = buildReportModel(snapshot, [], meta);
    expect(model.overview.summary).toMatchObject({
      paragraphs: [['Line <b>one</b>', 'line two'], ['Para two']],
    });
    // An invalid color fails the schema: the card says so rather than printing the string into CSS.
    expect(model.presence.byEngine.available).toBe(false);
  });
});
