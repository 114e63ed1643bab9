import type { ConfigIssue } from '../errors/index.js';
import { ALERTABLE, dimensionsOf, fieldsOf, parseMetric } from './alertable-metrics.js';
import { closest } from './suggest.js';

type Raw = Record<string, unknown>;
const isRecord = (value: unknown): value is Raw =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What `alerts:` names must mean, checked on the raw document like rules.ts: a metric the metrics layer
 * has, a field of it, a dimension it is broken down by; a rule that says one thing to watch and one
 * condition; alert names that do not collide with report names (both key the outbox). Each issue names
 * the rule's path (`alerts[0].rules[2].metric`) and, for a misspelling, the nearest known name.
 */
export function alertIssues(alerts: unknown[], reportNames: readonly string[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  alerts.forEach((alert, index) => {
    if (!isRecord(alert)) return;
    const path = `alerts[${index}]`;
    if (typeof alert.name === 'string' && reportNames.includes(alert.name)) {
      issues.push({ path: `${path}.name`, message: `"${alert.name}" is also a report name; use another` });
    }
    if (!Array.isArray(alert.rules)) return;
    alert.rules.forEach((rule, r) => {
      if (isRecord(rule)) issues.push(...ruleIssues(rule, `${path}.rules[${r}]`));
    });
  });
  return issues;
}

function ruleIssues(rule: Raw, path: string): ConfigIssue[] {
  const hasMetric = rule.metric !== undefined;
  const hasEvent = rule.event !== undefined;
  if (hasMetric === hasEvent)
    return [{ path, message: 'set metric (with change or value) or event, one of them' }];
  if (hasEvent) {
    const extra = [
      'change',
      'value',
      'per',
      'baseline',
      'significant',
      'compare_with',
      'false_alarm_rate',
      'for_runs',
    ].filter((key) => rule[key] !== undefined);
    return extra.map((key) => ({ path: `${path}.${key}`, message: 'only with metric, not with event' }));
  }
  const issues: ConfigIssue[] = [];
  if ((rule.change === undefined) === (rule.value === undefined)) {
    issues.push({ path, message: 'set change or value (one of them) with metric' });
  }
  for (const key of ['baseline', 'significant', 'compare_with', 'false_alarm_rate', 'for_runs']) {
    if (rule[key] !== undefined && rule.change === undefined)
      issues.push({ path: `${path}.${key}`, message: 'only with change' });
  }
  if (rule.false_alarm_rate !== undefined && rule.significant === false)
    issues.push({
      path: `${path}.false_alarm_rate`,
      message: 'not with significant: false (a rule that fires on every change judges nothing)',
    });
  if (rule.compare_with !== undefined && rule.baseline === 'mean_of_last_4')
    issues.push({
      path: `${path}.compare_with`,
      message: 'not with baseline: mean_of_last_4; use one of them',
    });
  if (typeof rule.metric !== 'string') return issues;
  const per = typeof rule.per === 'string' ? rule.per : undefined;
  const ref = parseMetric(rule.metric, per);
  if (!ref) {
    const guess = closest(rule.metric, Object.keys(ALERTABLE));
    issues.push({
      path: `${path}.metric`,
      message: `no metric "${rule.metric}"${guess ? ` (did you mean ${guess}?)` : ''}`,
    });
    return issues;
  }
  const dims = dimensionsOf(ref.endpoint);
  if (per !== undefined && !dims.includes(per)) {
    const guess = closest(per, dims);
    issues.push({
      path: `${path}.per`,
      message: `${ref.endpoint} has no dimension "${per}"${guess ? ` (did you mean ${guess}?)` : ''} (dimensions: ${dims.join(', ') || 'none'})`,
    });
    return issues;
  }
  const fields = fieldsOf(ref.endpoint, per);
  if (!fields.includes(ref.field)) {
    if (per === undefined && fields.length === 0) {
      issues.push({
        path: `${path}.per`,
        message: `${ref.endpoint} is only broken down; add per: ${dims.join(' | ')}`,
      });
      return issues;
    }
    const guess = closest(ref.field, fields);
    issues.push({
      path: `${path}.metric`,
      message: `${ref.endpoint} has no field "${ref.field}"${per ? ` per ${per}` : ''}${guess ? ` (did you mean ${ref.endpoint}.${guess}?)` : ''} (fields: ${fields.join(', ')})`,
    });
  }
  return issues;
}
