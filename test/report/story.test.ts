import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_LOCALES } from '../../src/config/locale-tags.js';
import { composeEmail } from '../../src/delivery/compose/email.js';
import { digestEmailContent, emailContentFor } from '../../src/delivery/headline.js';
import { CATALOGS, reportLocale } from '../../src/locale/locale.js';
import { renderDigestHtml } from '../../src/report/digest/html.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel, type ReportModel } from '../../src/report/model/index.js';
import type { ReportSnapshot } from '../../src/report/model/snapshot.js';
import { loadReportTemplates } from '../../src/report/templates.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runBefore } from './earlier-run.js';
import { fixtureSnapshot } from './fixtures.js';
import { everySandboxSet } from './sandbox-snapshot.js';

const meta = (locale: string) => ({
  locale,
  timeZone: 'UTC',
  generatedAt: new Date('2026-10-15T06:00:00Z'),
  version: 'test',
});

/** Numbers as printed ("37,3", "1,234", "12"): digits joined by separators, no trailing one. */
const numbersIn = (text: string) => text.match(/\d+(?:[.,\u00a0\u202f ]\d+)*/g) ?? [];

/** The rendered report with the story's own panel cut out, tags dropped, spaces normalised. */
function outsideStory(html: string): string {
  const without = html.replace(/<div class="panel story">[\s\S]*?<\/div>/, '');
  expect(without).not.toBe(html);
  return without
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/[\u00a0\u202f]/g, ' ');
}

type Share = { name: string; share: number; isBrand: boolean };

/** The run before `snapshot`: its payloads with the shares of two entries swapped. */
function runBeforeWithSwapped(snapshot: ReportSnapshot, a: Share, b: Share): ReportSnapshot {
  const payload = snapshot.payloads['overview.competitive-context']!.data as { shares: Share[] };
  const shares = payload.shares.map((entry) =>
    entry.name === a.name
      ? { ...entry, share: b.share }
      : entry.name === b.name
        ? { ...entry, share: a.share }
        : entry,
  );
  return {
    ...snapshot,
    id: snapshot.id - 1,
    run: { ...snapshot.run, id: snapshot.run.id - 1, created_at: '2020-01-01T00:00:00Z' },
    payloads: {
      ...snapshot.payloads,
      'overview.competitive-context': { data: { ...payload, shares }, error: null },
    },
  };
}

describe('the story of a run (every sandbox set, every locale)', () => {
  let sandbox: Sandbox;
  let snapshots: ReportSnapshot[] = [];
  const models = new Map<string, { model: ReportModel; html: string }[]>();

  beforeAll(async () => {
    sandbox = await startSandbox();
    snapshots = await everySandboxSet(sandbox);
    for (const locale of REPORT_LOCALES)
      models.set(
        locale,
        snapshots.map((snapshot) => {
          const model = buildReportModel(snapshot, [runBefore(snapshot)], meta(locale));
          return { model, html: renderReportHtml(model).html };
        }),
      );
  }, 120_000);

  afterAll(async () => {
    await sandbox?.close();
  });

  it('covers more than one sandbox set', () => {
    expect(snapshots.length).toBeGreaterThan(1);
  });

  it('tells three to five sentences, on the overview page', () => {
    for (const locale of REPORT_LOCALES)
      for (const { model, html } of models.get(locale) ?? []) {
        expect(model.story.length, `${locale} set ${model.cover.querySetId}`).toBeGreaterThanOrEqual(3);
        expect(model.story.length).toBeLessThanOrEqual(5);
        const overview = html.slice(html.indexOf('id="overview"'));
        expect(overview).toContain('class="panel story"');
        for (const sentence of model.story) expect(sentence).toMatch(/[.!]$/);
      }
  });

  it('says a likely change or that there is none, and names the false claims by engine', () => {
    for (const { model } of models.get('en-US') ?? []) {
      const text = model.story.join(' ');
      expect(text).toMatch(/: a likely change\.|No change by engine is a likely change\./);
      // Never "real", never a "±" beside an uneven interval.
      expect(text).not.toMatch(/\breal\b|± /);
      if (model.gravity.errors.available && model.gravity.errors.items.some((i) => i.wrong.length > 0))
        expect(text).toMatch(/false claims are open; wrong answers came from |false claim/);
    }
  });

  it("opens with the headline family's likely changes, else the headline card's change and what it compares with", () => {
    for (const locale of REPORT_LOCALES)
      for (const { model } of models.get(locale) ?? []) {
        const card = model.presence.weighted;
        if (!card.available || !card.kpi.delta.available) continue;
        // A likely change of weighted or gross presence leads: never an unclear figure before it.
        const likely = [model.presence.weighted, model.presence.gross].flatMap((c) =>
          c.available && c.kpi.delta.verdict === 'likely' ? [c.kpi.delta] : [],
        );
        if (likely.length > 0) {
          expect(model.story[0]).toContain(likely[0]!.text);
          expect(model.story[0]).toContain(likely[0]!.interval!);
          continue;
        }
        const words = reportLocale(locale);
        const verdict = card.kpi.delta.verdict ? `, ${words.t(`verdict.${card.kpi.delta.verdict}`)}` : '';
        expect(model.story[0], `${locale} set ${model.cover.querySetId}`).toContain(
          `${card.kpi.delta.text} ${words.t('kpi.vsPrevious')}${verdict}`,
        );
      }
  });

  it('quotes a likely change with its interval, as the presence table prints it', () => {
    // The fixture's per-engine moves on 100,000 answers a run: likely changes.
    const big = fixtureSnapshot();
    const positions = big.payloads['presence.position-distribution']!.data as { totalAll: number };
    big.payloads['presence.position-distribution'] = {
      data: { ...positions, totalAll: 100_000 },
      error: null,
    };
    for (const locale of REPORT_LOCALES) {
      const model = buildReportModel(big, [runBefore(big)], meta(locale));
      if (!model.presence.byEngine.available) throw new Error('fixture lacks presence by engine');
      const likely = model.presence.byEngine.rows
        .filter((row) => row.delta.verdict === 'likely')
        .sort((a, b) => (b.delta.size ?? 0) - (a.delta.size ?? 0))[0];
      expect(likely, locale).toBeDefined();
      expect(likely!.delta.interval, locale).toMatch(/\d.* \S+ .*\d/);
      const story = model.story.join(' ');
      expect(story, locale).toContain(likely!.delta.text);
      expect(story, locale).toContain(likely!.delta.interval!);
      const rest = outsideStory(renderReportHtml(model).html);
      for (const number of numbersIn(story.replace(/[\u00a0\u202f]/g, ' ')))
        expect(rest, `${locale}: "${number}" of "${story}"`).toContain(number);
    }
  });

  it('prints no number the document does not print in its cards and tables', () => {
    let checked = 0;
    for (const locale of REPORT_LOCALES)
      for (const { model, html } of models.get(locale) ?? []) {
        const rest = outsideStory(html);
        for (const sentence of model.story)
          for (const number of numbersIn(sentence.replace(/[\u00a0\u202f]/g, ' '))) {
            expect(rest, `${locale} set ${model.cover.querySetId}: "${number}" of "${sentence}"`).toContain(
              number,
            );
            checked += 1;
          }
      }
    expect(checked).toBeGreaterThan(0);
  });

  it('writes de/fr/es stories in their language: no word of the English story messages', () => {
    const en = CATALOGS.en as Readonly<Record<string, string>>;
    const englishWords = new Set(
      Object.entries(en)
        .filter(([key]) => key.startsWith('story.') && key !== 'story.title')
        .flatMap(([, message]) => message.replace(/\{[^}]+\}/g, ' ').match(/\p{L}{3,}/gu) ?? [])
        .map((word) => word.toLowerCase()),
    );
    expect(englishWords.size).toBeGreaterThan(10);
    for (const locale of ['de-DE', 'fr-FR', 'es-ES'] as const)
      for (const { model } of models.get(locale) ?? []) {
        // Names come from the data (engines, intents) and may be English: only the catalog's words count.
        const names = new Set(
          [
            ...(model.presence.byEngine.available
              ? model.presence.byEngine.rows.map((r) => r.engine.label)
              : []),
            ...(model.presence.byIntent.available ? model.presence.byIntent.rows.map((r) => r.label) : []),
            ...(model.gravity.errors.available ? model.gravity.errors.engines.map((e) => e.label) : []),
          ].flatMap((name) => name.toLowerCase().match(/\p{L}+/gu) ?? []),
        );
        const words =
          model.story
            .join(' ')
            .toLowerCase()
            .match(/\p{L}{3,}/gu) ?? [];
        const english = words.filter((word) => englishWords.has(word) && !names.has(word));
        expect(english, `${locale}: ${model.story.join(' ')}`).toEqual([]);
      }
  });

  it('opens the email body (HTML and text) with the same story, escaped, in the report locale', async () => {
    for (const locale of REPORT_LOCALES) {
      const first = models.get(locale)?.[0];
      const snapshot = snapshots[0];
      if (!first || !snapshot) throw new Error('no sandbox set');
      const message = await composeEmail({
        from: 'Reports <reports@example.com>',
        messageId: '<story@reportd>',
        report: { name: 'weekly', locale, email: { to: ['ceo@example.com'] }, max_attachment_mb: 10 },
        content: emailContentFor(snapshot, first.model, []),
      });
      const escaped = (text: string) =>
        text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#x27;');
      const story = first.model.story.join(' ');
      expect(String(message.text), locale).toContain(story);
      expect(String(message.html), locale).toContain(escaped(story));
    }
  });

  it('gives each set of the digest email its story, HTML and text, but not a run already sent', async () => {
    const escaped = (text: string) =>
      text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#x27;');
    for (const locale of REPORT_LOCALES) {
      const built = models.get(locale) ?? [];
      const sets = snapshots.map((snapshot, i) => ({ snapshot, model: built[i]!.model, repeated: i === 0 }));
      const message = await composeEmail({
        from: 'Reports <reports@example.com>',
        messageId: '<digest-story@reportd>',
        report: { name: 'weekly', locale, email: { to: ['ceo@example.com'] }, max_attachment_mb: 10 },
        content: digestEmailContent(sets, [], 'Week 1'),
      });
      for (const [i, { model }] of built.entries()) {
        const story = model.story.join(' ');
        const where = `${locale} set ${model.cover.querySetId}`;
        if (i === 0) {
          // "No new run since …": its story was in the message that carried that run.
          expect(String(message.text), where).not.toContain(story);
          continue;
        }
        expect(String(message.text), where).toContain(story);
        expect(String(message.html), where).toContain(escaped(story));
      }
    }
  });

  it('tells a share-of-voice overtake against the run before, with numbers the document prints', () => {
    const snapshot = snapshots[0];
    if (!snapshot) throw new Error('no sandbox set');
    const payload = snapshot.payloads['overview.competitive-context']?.data as {
      shares: { name: string; share: number; isBrand: boolean }[];
    };
    // The nearest competitor (above the brand, or below it when it leads): the aggregate "Other
    // competitors (n)" entry is none, wherever it sits.
    const sorted = [...payload.shares]
      .sort((a, b) => b.share - a.share)
      .filter((entry) => !/^Other competitors/.test(entry.name));
    const brand = sorted.findIndex((entry) => entry.isBrand);
    const rival = sorted[brand === 0 ? 1 : brand - 1];
    const own = sorted[brand];
    if (!rival || !own) throw new Error('the sandbox set has no competitor');
    // The run before: the same payloads with the brand's and its neighbour's shares swapped.
    const before = runBeforeWithSwapped(snapshot, own, rival);
    for (const locale of REPORT_LOCALES) {
      const model = buildReportModel(snapshot, [before], meta(locale));
      const sentence = model.story.find((line) => line.includes(rival.name) && line.includes(own.name));
      expect(sentence, `${locale}: ${model.story.join(' ')}`).toBeDefined();
      // A change of rank in share of voice is not judged against noise, and says so.
      const message = (CATALOGS[locale.slice(0, 2)] as Readonly<Record<string, string>>)['story.overtake']!;
      expect(sentence).toContain(message.slice(message.lastIndexOf('(')));
      expect(model.story.length).toBeLessThanOrEqual(5);
      const rest = outsideStory(renderReportHtml(model).html);
      for (const number of numbersIn((sentence ?? '').replace(/[\u00a0\u202f]/g, ' ')))
        expect(rest, `${locale}: "${number}" of "${sentence}"`).toContain(number);
    }
    // Without the run before, no overtake is told.
    const alone = buildReportModel(snapshot, [], meta('en-US'));
    expect(alone.story.join(' ')).not.toMatch(/overtook/);
    expect(buildReportModel(snapshot, [before], meta('en-US')).story.join(' ')).toMatch(/ overtook /);
  });

  it('tells no overtake of the aggregate "Other competitors" entry: it is no competitor', () => {
    // A set whose brand sits next to the aggregate entry in share of voice.
    const found = snapshots.flatMap((snapshot) => {
      const payload = snapshot.payloads['overview.competitive-context']?.data as {
        shares: { name: string; share: number; isBrand: boolean }[];
      };
      const sorted = [...(payload?.shares ?? [])].sort((a, b) => b.share - a.share);
      const brand = sorted.findIndex((entry) => entry.isBrand);
      const other = [sorted[brand - 1], sorted[brand + 1]].find(
        (e) => e && /^Other competitors/.test(e.name),
      );
      return brand >= 0 && other ? [{ snapshot, own: sorted[brand]!, other }] : [];
    })[0];
    if (!found) throw new Error('no sandbox set whose brand neighbours the aggregate entry');
    const { snapshot, own, other } = found;
    // The run before: the brand's and the aggregate's shares swapped, so one passed the other.
    const before = runBeforeWithSwapped(snapshot, own, other);
    const story = buildReportModel(snapshot, [before], meta('en-US')).story.join(' ');
    expect(story).not.toContain(other.name);
    expect(story).not.toMatch(/ overtook /);
  });

  it('tells only the false claims the run compared with did not have as new, by engine', () => {
    const snapshot = snapshots.find((s) => {
      const data = s.payloads['gravity.error-register']?.data as { gravityErrors?: { wrong: unknown[] }[] };
      return data?.gravityErrors?.some((e) => e.wrong.length > 1);
    });
    if (!snapshot) throw new Error('no sandbox set with two wrong claims on one error');
    const register = snapshot.payloads['gravity.error-register']!.data as {
      gravityErrors: { wrong: { engine: number; text: string }[] }[];
    };
    const withClaims = register.gravityErrors.find((e) => e.wrong.length > 1)!;
    const kept = withClaims.wrong[0]!;
    const dropped = withClaims.wrong[1]!;
    const plain = buildReportModel(snapshot, [], meta('en-US')).gravity.errors;
    const name = (id: number) =>
      (plain.available ? plain.engines.find((e) => e.id === id)?.label : undefined) ?? '?';
    const beforeWith = (gravityErrors: unknown[]): ReportSnapshot => ({
      ...snapshot,
      id: snapshot.id - 1,
      run: { ...snapshot.run, id: snapshot.run.id - 1, created_at: '2020-01-01T00:00:00Z' },
      payloads: {
        ...snapshot.payloads,
        'gravity.error-register': { data: { ...register, gravityErrors }, error: null },
      },
    });
    // The run before had every claim but one: that one's engine is the one named as new.
    const allButOne = register.gravityErrors.map((e) =>
      e === withClaims ? { ...e, wrong: e.wrong.filter((w) => w !== dropped) } : e,
    );
    const onlyOne = buildReportModel(snapshot, [beforeWith(allButOne)], meta('en-US')).story.join(' ');
    const others = register.gravityErrors.flatMap((e) => e.wrong).filter((w) => w !== dropped);
    expect(onlyOne).toMatch(new RegExp(`New false claims this run came from ${name(dropped.engine)};`));
    if (!others.some((w) => w.engine === kept.engine && kept.engine !== dropped.engine))
      throw new Error('fixture: the kept claim must be of another engine');
    expect(onlyOne).not.toMatch(new RegExp(`came from [^;]*${name(kept.engine)}`));
    // A newer run stored beside them (this run rendered again after the next was synced) is not
    // the run before: with every claim in it, the dropped one would no longer be told as new.
    const newer: ReportSnapshot = {
      ...beforeWith(register.gravityErrors),
      id: snapshot.id + 1,
      run: { ...snapshot.run, id: snapshot.run.id + 1, created_at: '2099-01-01T00:00:00Z' },
    };
    const withNewer = buildReportModel(snapshot, [newer, beforeWith(allButOne)], meta('en-US')).story;
    expect(withNewer.join(' ')).toMatch(
      new RegExp(`New false claims this run came from ${name(dropped.engine)};`),
    );
    // The run before had them all: none is new, and the story says so.
    const none = buildReportModel(snapshot, [beforeWith(register.gravityErrors)], meta('en-US')).story;
    expect(none.join(' ')).toMatch(/No engine made a new false claim this run; \d+ remain open\./);
    // German: the same rule, in German words.
    const german = buildReportModel(snapshot, [beforeWith(allButOne)], meta('de-DE')).story.join(' ');
    expect(german).toMatch(/Neue Falschaussagen in diesem Lauf stammten von /);
  });

  it("puts each set's story on the digest's portfolio page", () => {
    for (const locale of REPORT_LOCALES) {
      const sets = (models.get(locale) ?? []).map(({ model }) => ({ model, moves: [] }));
      const rendered = renderDigestHtml(
        { report: 'weekly', sets, moves: [], locale, contents: {}, period: 'Week 1' },
        loadReportTemplates(),
      );
      const html = typeof rendered === 'string' ? rendered : rendered.html;
      const portfolio = html.slice(
        html.indexOf('portfolio-page'),
        html.indexOf('</table>', html.indexOf('portfolio-page')),
      );
      for (const { model } of sets)
        expect(portfolio, locale).toContain(
          model.story
            .join(' ')
            .replace(/&/g, '&amp;')
            .replace(/</g, '&lt;')
            .replace(/>/g, '&gt;')
            .replace(/'/g, '&#x27;'),
        );
    }
  });
});
