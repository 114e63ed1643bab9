import { describe, expect, it } from 'vitest';
import { buildReportModel } from '../../src/report/model/index.js';
import { runBefore } from '../report/earlier-run.js';
import { drawRun, generator, INTENT_SIZES, QUIET_RATES, type Rates, snapshotOf } from './simulated-runs.js';

/**
 * What judging a report's changes as families buys, by simulation with reportd's own report model:
 * pairs of runs drawn answer by answer (240 queries × 5 engines, 6 intents of uneven size), each pair
 * made into the later run's payloads and built into its report. In a quiet world (both runs from the
 * same rates) at most 5 % of reports — and of their stories — may call anything a likely change; a
 * true 10-point fall of presence on 600 answers must still be found as a headline figure in at least
 * 80 % of reports. Seeded, so the figures are the same on every machine; printed for the docs.
 */

const PAIRS = 800;
const meta = { generatedAt: new Date('2026-01-02T00:00:00Z'), version: 'sim', locale: 'en-US' };
/** The payloads whose changes a report judges, and the counts behind their n (the rest would be unavailable cards). */
const JUDGED = [
  'presence.gross',
  'presence.weighted',
  'presence.position-distribution',
  'presence.by-engine',
  'presence.by-intent',
  'life.recommended-share',
  'life.neutral-share',
  'life.negative-share',
  'gravity.gravity-plus',
  'gravity.gravity-minus',
];

/** A story sentence that calls something a likely change (story.likelyChange, or the headline's verdict). */
const LIKELY_CLAIM = /: a likely change\.$|, likely change\)\.$/;

function reports(before: Rates, after: Rates, seed: number, queries = INTENT_SIZES) {
  const random = generator(seed);
  const out = [];
  for (let i = 0; i < PAIRS; i++) {
    const earlier = drawRun(before, random, queries);
    const later = drawRun(after, random, queries);
    const snapshot = snapshotOf(later, earlier, JUDGED);
    // Changes are judged from two stored runs: the earlier one is stored before it.
    out.push(buildReportModel(snapshot, [runBefore(snapshot)], meta));
  }
  return out;
}

describe('a report judges its changes as families', () => {
  it('calls something a likely change in at most 5 % of quiet reports, and of their stories', () => {
    const models = reports(QUIET_RATES, QUIET_RATES, 32);
    // The run's changes, judged as one family: 2 headline figures and 19 others; nothing per intent.
    expect(new Set(models.map((m) => `${m.judged.size}/${m.judged.headline}`))).toEqual(new Set(['21/2']));
    const anyLikely = models.filter((m) => m.judged.likely > 0).length / PAIRS;
    const storyLikely = models.filter((m) => m.story.some((s) => LIKELY_CLAIM.test(s))).length / PAIRS;
    const perReport = models.reduce((sum, m) => sum + m.judged.likely, 0) / PAIRS;
    console.log(
      `families simulation (quiet world, ${PAIRS} report pairs): reports with a likely change ${pc(anyLikely)}, ` +
        `stories ${pc(storyLikely)}, likely changes per report ${perReport.toFixed(3)}`,
    );
    expect(anyLikely).toBeLessThanOrEqual(0.05);
    expect(storyLikely).toBeLessThanOrEqual(0.05);
  });

  it('still finds a true 10-point fall of presence on 600 answers as a headline figure', () => {
    // 120 queries × 5 engines = 600 answers; every engine's presence falls 10 points.
    const fallen = { ...QUIET_RATES, presence: QUIET_RATES.presence.map((p) => p - 0.1) };
    const models = reports(QUIET_RATES, fallen, 33, [6, 14, 18, 22, 28, 32]);
    expect(models.every((m) => m.presence.gross.available && m.presence.gross.kpi.value)).toBe(true);
    const found =
      models.filter((m) => m.presence.gross.available && m.presence.gross.kpi.delta.verdict === 'likely')
        .length / PAIRS;
    console.log(`families simulation (10-point fall, n = 600): found as a headline figure ${pc(found)}`);
    expect(found).toBeGreaterThanOrEqual(0.8);
  });
});

const pc = (share: number) => `${(share * 100).toFixed(1)} %`;
