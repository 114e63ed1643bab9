import type { NumberRule } from '../../api/field-units.js';
import type { Judged, MetricChange } from '../../insight/changes.js';
import type { InsightRow } from '../../insight/sample-sizes.js';
import { validValue } from '../../insight/valid-values.js';
import { currentLocale, t } from '../../locale/locale.js';
import { type DeltaView, formatValue, withVerdict } from '../format.js';
import type { PayloadReader } from './payloads.js';

/**
 * A delta as the report shows it: the run's change as the stored runs give it, with the verdict the
 * run's insight gave it (insight/run-insight.ts; the export and MCP read the same). The interval is
 * printed as it is ("−12.5 to −4.6 pts": Newcombe's interval is uneven, so never "± half"). A likely
 * change alone gets an arrow and a colour (format.ts `withVerdict`); one with no clear change, and one
 * the model could not judge (no counts, a unit it does not model), stay plain, the latter without an
 * interval. A value outside
 * what its unit allows shows "—" and says so; without an earlier stored run the API's own delta is
 * shown "as reported by the service", not judged (docs/analysing-data.md).
 */
export function judgedDelta(
  reader: PayloadReader,
  ref: Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>,
  reported: unknown,
  rule: NumberRule,
  view: (delta: unknown) => DeltaView,
): DeltaView {
  if (!reader.family.insight) {
    const shown = view(reported);
    return shown.available ? { ...shown, note: t('delta.reported') } : shown;
  }
  const change = reader.family.verdictOf(ref);
  if (!change) return view(undefined);
  if (change.significance === 'invalid') return invalidView(change, rule, view);
  // The stored difference, on the scale the API's delta would have been sent in.
  const shown = { ...view(change.after - change.before), figure: figureKey(ref) };
  if (change.note === 'copies-disagree') return { ...shown, note: t('verdict.copiesDisagree') };
  return verdictView(shown, change);
}

/** One figure's identity across the pages that show it. */
function figureKey(ref: Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>): string {
  return [ref.endpoint, ref.field, ref.dimension ?? '', ref.dimension_id ?? ''].join('|');
}

/** "—" and the note that the service sent a value its unit cannot take (plain: never judged). */
function invalidView(change: MetricChange, rule: NumberRule, view: (delta: unknown) => DeltaView): DeltaView {
  const wrong = validValue(change.after, change.unit) ? change.before : change.after;
  return {
    ...view(undefined),
    text: '—',
    available: true,
    note: t('delta.invalid', { value: formatValue(wrong, rule) }),
  };
}

/** What a verdict makes of a delta's view: marked when likely (format.ts `withVerdict`), with its interval. */
function verdictView(view: DeltaView, judged: Judged): DeltaView {
  if (judged.low === null || judged.high === null || judged.significance === 'unknown') return view;
  // Anything but a likely change (an invalid value, copies that disagree) stays plain.
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
