import { judgeChange } from '../../insight/changes.js';
import type { InsightRow } from '../../insight/sample-sizes.js';
import { currentLocale, t } from '../../locale/locale.js';
import type { DeltaView, NumberRule } from '../format.js';
import type { PayloadReader } from './payloads.js';

/**
 * A delta as the report shows it once the noise model has judged it: every judged change carries the
 * half-width of its 95 % interval ("+2.6 ± 9.1 pts"); a change within noise loses its arrow and
 * colour, a real one keeps them and is marked `noise: false`, so it is told apart from one the model
 * could not judge (no counts, a unit it does not model), which stays unmarked and has no "±". The
 * run before is `current − delta` on the same number of answers (the payload holds only this run's
 * counts; README, "How noise is judged").
 */
export function judgedDelta(
  reader: PayloadReader,
  ref: Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>,
  current: unknown,
  delta: unknown,
  rule: NumberRule,
  view: DeltaView,
): DeltaView {
  if (!view.available || typeof current !== 'number' || typeof delta !== 'number') return view;
  const unit = rule.name === 'percent' ? 'percent' : rule.name === 'fraction' ? 'fraction' : undefined;
  if (!unit) return view;
  const sample = reader.samples().of(ref);
  if (!sample) return view;
  const judged = judgeChange(
    { value: current - delta, n: sample.n },
    { value: current, n: sample.n },
    unit,
    true,
  );
  if (judged.significance === 'unknown' || judged.low === null || judged.high === null) return view;
  const locale = currentLocale();
  const half = locale.number((judged.high - judged.low) / 2, 1);
  const sign = view.direction === 'up' ? '+' : view.direction === 'down' ? '−' : '';
  const number = `${sign}${locale.number(Math.abs(judged.change), 1)}`;
  // Both verdicts print their interval, so the story can quote a real change with it and the reader
  // finds the same text in the table; only the arrow and colour tell real from noise.
  const text = t('delta.points', { value: `${number} ± ${half}` });
  // Marked so the story can tell a judged real change from one nobody could judge.
  if (judged.significance === 'real') return { ...view, text, noise: false };
  return { ...view, text, tone: 'neutral', arrow: '', noise: true };
}
