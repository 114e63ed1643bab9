import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleFor } from '../../src/api/field-units.js';
import { parseComparison, resolveBaseline } from '../../src/config/compare-with.js';
import { headlineKpis } from '../../src/delivery/headline.js';
import { formatDelta, polarityOf } from '../../src/report/format.js';
import { renderReportHtml } from '../../src/report/html.js';
import { renderReportDocuments } from '../../src/report/render.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import { listSnapshots } from '../../src/store/snapshots.js';
import type { Store } from '../../src/store/sql.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';

/**
 * `compare_with` on a real SQLite store holding the ten weekly runs of sandbox set 101, synced over
 * HTTP: the headline cards (and so the email headline) measure against the run 4 back, the run 4
 * weeks back, or say plainly that no stored run is 52 weeks old and show no change.
 */

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let store: Store;
beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
  const config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
store: { path: ./store.sqlite }
sync: { query_sets: [101], backfill_runs: 10 }
`,
  );
  const sync = await runCli(['sync', '--config', config, '--no-progress']);
  expect(sync.code, sync.stderr).toBe(0);
  store = await openStore(join(tmp.dir, 'store.sqlite'));
}, 240_000);
afterAll(async () => {
  await store?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

const render = (compareWith?: string, locale?: string) =>
  renderReportDocuments(store, {
    querySetId: 101,
    formats: [],
    outDir: join(tmp.dir, 'out'),
    ...(compareWith ? { compareWith } : {}),
    ...(locale ? { locale } : {}),
  });
const grossOf = (payloads: Record<string, { data: unknown }>) =>
  (payloads['presence.gross']!.data as { current: number; delta: number }).current;

describe('compare_with', () => {
  it('parses the forms people write and nothing else', () => {
    expect(parseComparison('previous')).toEqual({ kind: 'previous' });
    expect(parseComparison('4 runs')).toEqual({ kind: 'runs', runs: 4 });
    expect(parseComparison('1 run')).toEqual({ kind: 'previous' });
    expect(parseComparison('52 weeks')).toMatchObject({ kind: 'offset', days: 364 });
    expect(parseComparison('10 days')).toMatchObject({ kind: 'offset', days: 10 });
    for (const bad of ['last year', '0 runs', '4', 'weeks', '4 months'])
      expect(parseComparison(bad)).toBe(undefined);
  });

  it('a calendar offset takes the nearest stored run, never a much newer one', () => {
    const day = (d: number) => ({
      id: d,
      createdAt: new Date(Date.UTC(2026, 0, 1) + d * 86_400_000).toISOString(),
    });
    const runs = [0, 7, 14, 21, 28].map(day);
    const at = (text: string) => resolveBaseline(parseComparison(text)!, day(28), runs);
    expect(at('4 weeks')).toEqual({ kind: 'run', run: day(0) });
    expect(at('2 weeks')).toEqual({ kind: 'run', run: day(14) });
    expect(at('4 runs')).toEqual({ kind: 'run', run: day(0) });
    expect(at('5 weeks')).toEqual({ kind: 'none' });
    expect(at('5 runs')).toEqual({ kind: 'none' });
  });

  it('cards and the email headline measure against the run chosen, or say no run is that old', async () => {
    const history = await listSnapshots(store, { querySetId: 101, account: 'acme' });
    expect(history.length).toBe(10);
    const [current, , , , fourBack] = history;
    const rule = ruleFor('presence.gross');

    const previous = await render();
    expect(previous.model.presence.gross.available && previous.model.presence.gross.kpi.versus).toBe(
      undefined,
    );

    for (const text of ['4 runs', '4 weeks']) {
      const { model, snapshot } = await render(text);
      expect(snapshot.run.id).toBe(current!.run.id);
      const gross = model.presence.gross;
      if (!gross.available) throw new Error('gross presence unavailable');
      expect(gross.kpi.versus).toBe(`vs ${fourBack!.run.display_name}`);
      const expected = formatDelta(
        grossOf(current!.payloads) - grossOf(fourBack!.payloads),
        rule,
        polarityOf('presence.gross'),
      );
      // The number is the change against that run; its interval is printed beside it, not in it.
      expect(gross.kpi.delta.text).toBe(expected.text);
      const headline = headlineKpis(model).find((k) => k.label === gross.kpi.label)!;
      expect(headline.delta).toContain(`vs ${fourBack!.run.display_name}`);
      expect(renderReportHtml(model).html).toContain(`vs ${fourBack!.run.display_name}`);
      // The story's first sentence gives the weighted card's change with the same "versus".
      // (a likely change of a headline figure leads, and says it too).
      expect(model.story[0]).toContain(` vs ${fourBack!.run.display_name}`);
    }
    expect(previous.model.story[0]).toContain(' vs previous run');

    const old = await render('52 weeks');
    const gross = old.model.presence.gross;
    if (!gross.available) throw new Error('gross presence unavailable');
    expect(gross.kpi.delta.available).toBe(false);
    expect(gross.kpi.versus).toBe('no stored run that old');
    expect(headlineKpis(old.model).every((k) => k.delta === 'no stored run that old')).toBe(true);
    expect(renderReportHtml(old.model).html).toContain('no stored run that old');
    expect(old.model.story[0]).toMatch(/ \(no stored run that old\)\.$/);

    const de = await render('52 weeks', 'de-DE');
    expect(de.model.presence.gross.available && de.model.presence.gross.kpi.versus).toBe(
      'kein so alter Lauf gespeichert',
    );
  }, 120_000);

  it('a report with a compare_with that cannot be read is one line naming the field', async () => {
    const config = join(tmp.dir, 'bad.yaml');
    writeFileSync(
      config,
      `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: k, api_secret: s }
store: { path: ./store.sqlite }
smtp: { url: "smtp://127.0.0.1:1", from: "r <r@example.com>" }
reports:
  - name: weekly
    trigger: new_run
    compare_with: last year
    email: { to: [a@example.com] }
`,
    );
    const result = await runCli(['check', '--config', config]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/reports\[0\]\.compare_with.*expected previous, "N runs"/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
