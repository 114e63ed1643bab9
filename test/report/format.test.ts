import { describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { FIELD_RULES, mixScale, RULES, ruleFor } from '../../src/api/field-units.js';
import { excelFormat, formatDelta, formatValue, polarityOf, withVerdict } from '../../src/report/format.js';

describe('number display rules', () => {
  it('shows percent-point fields and fraction fields the same way', () => {
    expect(formatValue(43.7, ruleFor('presence.gross'))).toBe('43.7%');
    expect(formatValue(0.234, ruleFor('overview.competitive-context', 'share'))).toBe('23.4%');
    expect(formatValue(0.167, ruleFor('presence.weighted', 'fairShare'))).toBe('16.7%');
    expect(formatValue(62.4, ruleFor('life.kpi'))).toBe('62.4');
    expect(formatValue(4.35, ruleFor('life.positive-negative-ratio'))).toBe('4.35×');
    expect(formatValue(1032, ruleFor('scout.landscape-stats'))).toBe('1,032');
    expect(formatValue(2.6, ruleFor('market.data', 'tBar'))).toBe('2.60');
  });

  it('reads parts of one whole as fractions or percents by their sum', () => {
    expect(mixScale([0.38, 0.26, 0.15, 0.21])).toBe('fraction');
    expect(mixScale([18.4, 10.9, 70.7])).toBe('percent');
    const rule = ruleFor('gravity.source-distribution');
    expect(formatValue(18.4, rule, mixScale([18.4, 10.9, 70.7]))).toBe('18.4%');
    expect(formatValue(0.184, rule, mixScale([0.184, 0.109, 0.7]))).toBe('18.4%');
  });

  it('shows a dash for missing or non-numeric values, never NaN', () => {
    expect(formatValue(undefined, RULES.percent)).toBe('—');
    expect(formatValue(Number.NaN, RULES.count)).toBe('—');
    expect(formatValue('12', RULES.count)).toBe('—');
    expect(formatDelta(null, RULES.percent, 'up')).toMatchObject({ text: '—', available: false });
  });

  it('gives deltas a direction, plain until judged, and marks only a likely change good or bad', () => {
    const gross = formatDelta(2.1, ruleFor('presence.gross'), polarityOf('presence.gross'));
    // Not judged yet: no arrow, no colour, and the words say so.
    expect(gross).toMatchObject({
      text: '+2.1 pts',
      direction: 'up',
      tone: 'neutral',
      arrow: '',
      meaning: '',
      said: 'up 2.1 points, not judged',
    });
    expect(withVerdict(gross, 'likely')).toMatchObject({
      tone: 'good',
      arrow: '▲',
      meaning: 'better',
      said: 'up 2.1 points, likely change, better',
    });
    expect(withVerdict(gross, 'unclear')).toMatchObject({
      tone: 'neutral',
      arrow: '',
      meaning: '',
      said: 'up 2.1 points, no clear change',
    });
    // Up is bad for negative share, gravity-minus and open errors.
    const negative = formatDelta(0.4, ruleFor('life.negative-share'), polarityOf('life.negative-share'));
    expect(withVerdict(negative, 'likely')).toMatchObject({ tone: 'bad', arrow: '▲', meaning: 'worse' });
    const minus = formatDelta(-0.7, ruleFor('gravity.gravity-minus'), polarityOf('gravity.gravity-minus'));
    expect(withVerdict(minus, 'likely')).toMatchObject({ tone: 'good', arrow: '▼', meaning: 'better' });
    // A count is never judged: it stays plain, its direction in words.
    expect(formatDelta(3, ruleFor('gravity.open-errors'), polarityOf('gravity.open-errors'))).toMatchObject({
      text: '+3',
      tone: 'neutral',
      arrow: '',
      said: 'up 3, not judged',
    });
    expect(formatDelta(0.012, ruleFor('market.data', 'fairShareMetric'), 'up').text).toBe('+1.2 pts');
  });

  it('calls a change that rounds to zero flat, with no arrow and no minus zero', () => {
    expect(formatDelta(-0.04, RULES.percent, 'up')).toMatchObject({
      text: '±0.0 pts',
      direction: 'flat',
      tone: 'neutral',
      arrow: '',
    });
    expect(formatValue(-0.0001, RULES.percent)).toBe('0.0%');
  });

  it('exports Excel formats that show what the PDF shows', () => {
    expect(excelFormat(RULES.percent)).toBe('0.0"%"');
    expect(excelFormat(RULES.fraction)).toBe('0.0%');
    expect(excelFormat(RULES.mix, 'value', 'fraction')).toBe('0.0%');
    expect(excelFormat(RULES.mix, 'value', 'percent')).toBe('0.0"%"');
    expect(excelFormat(RULES.count)).toBe('#,##0');
    expect(excelFormat(RULES.count, 'delta')).toBe('+#,##0;-#,##0;#,##0');
    expect(excelFormat(RULES.percent, 'delta')).toBe('+0.0" pts";-0.0" pts";0.0" pts"');
    expect(excelFormat(RULES.ratio)).toBe('0.00"×"');
  });

  it('has a rule for every metric endpoint that carries numbers', () => {
    const textOnly = ['overview.summary', 'gravity.error-register'];
    const covered = new Set(Object.keys(FIELD_RULES).map((key) => key.split('.').slice(0, 2).join('.')));
    const missing = metricEndpoints
      .map((e) => e.key)
      .filter((key) => !textOnly.includes(key) && !covered.has(key));
    expect(missing).toEqual([]);
  });
});
