import type { NumberRule } from '../../api/field-units.js';
import { type Judged, measureChange } from '../../insight/changes.js';
import type { InsightRow } from '../../insight/sample-sizes.js';
import { currentLocale, t } from '../../locale/locale.js';
import { type DeltaView, withVerdict } from '../format.js';
import type { PayloadReader } from './payloads.js';

/**
 * A delta as the report shows it once the noise model has judged it. The change joins the report's
 * family (family.ts); when the family is settled, the view gets its verdict and its interval,
 * printed as it is ("−12.5 to −4.6 pts": Newcombe's interval is uneven, so never "± half"). Only a
 * likely change gets an arrow and a colour; one with no clear change, and one the model could not
 * judge (no counts, a unit it does not model), stay plain (format.ts), the latter without an interval. The run
 * before is `current − delta` on the same number of answers (the payload holds only this run's
 * counts; docs/analysing-data.md, "How noise is judged").
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
  const measured = measureChange(
    { value: current - delta, n: sample.n },
    { value: current, n: sample.n },
    unit,
    true,
  );
  if (measured.p === null) return view;
  // Completed in place when the family is settled (buildReportModel does it before anything reads it).
  const judged: DeltaView = { ...view };
  reader.family.add(ref, measured, (verdict) => Object.assign(judged, verdictView(view, verdict)));
  return judged;
}

/** What a verdict makes of a delta's view: marked when likely (format.ts `withVerdict`), with its interval. */
function verdictView(view: DeltaView, judged: Judged): DeltaView {
  if (judged.low === null || judged.high === null || judged.significance === 'unknown') return view;
  // Anything but a likely change (i40's further states too) stays plain.
  const verdict = judged.significance === 'likely' ? 'likely' : 'unclear';
  return { ...withVerdict(view, verdict), interval: intervalText(judged.low, judged.high) };
}

/** "−12.5 to −4.6 pts", in the document's locale: an interval of a change in points, as it is. */
export function intervalText(low: number, high: number): string {
  const locale = currentLocale();
  const signed = (value: number) => {
    const text = locale.number(Math.abs(value), 1);
    // A bound that rounds to zero is printed unsigned, as the delta itself would be.
    if (Number(Math.abs(value).toFixed(1)) === 0) return text;
    return `${value < 0 ? '−' : '+'}${text}`;
  };
  return t('delta.interval', { low: signed(low), high: signed(high) });
}
