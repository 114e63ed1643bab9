import { z } from 'zod';
import { comparisonText } from './compare-with.js';
import { lifecycleFields, querySets, recipientFields, subjectTemplate } from './sections.js';
import { SUBJECT_VARIABLES } from './subject-template.js';

/**
 * `alerts:` in the config (issue 13). The shape is checked here; what the names mean (an endpoint, a
 * field, a dimension the metrics layer has) is checked in alert-rules.ts, where the path of the
 * offending rule and the nearest known name can be given.
 */

/** `<= -5`, `< 45`, `>= 10%`: an operator and a number, `%` for a change relative to the baseline. */
export const CONDITION = /^\s*(<=|>=|<|>)\s*([-+]?\d+(?:\.\d+)?)\s*(%?)\s*$/;

const condition = (what: string, percentAllowed: boolean) =>
  z
    .string()
    .refine(
      (text) => {
        const match = CONDITION.exec(text);
        return match !== null && (percentAllowed || match[3] === '');
      },
      {
        error: percentAllowed
          ? `expected an operator and a number, e.g. "<= -5" (points) or "<= -10%" (relative)`
          : `expected an operator and a number, e.g. "< 45"`,
      },
    )
    .describe(what);

/**
 * The default `false_alarm_rate` of a change rule. Chosen by simulation (test/alerts/noise-simulation.test.ts):
 * a weekly rule on 15 figures, with nothing changing, fires about 0.5 times a year at 0.02 and more
 * than once a year at 0.05.
 */
export const DEFAULT_FALSE_ALARM_RATE = 0.02;

export const alertRule = z
  .strictObject({
    metric: z
      .string()
      .min(1)
      .optional()
      .describe(
        'What to watch: an endpoint key and, after a dot, a field (`presence.gross` means its `current`; `presence.by-engine.weighted` with `per: engine`). Set this or `event`.',
      ),
    change: condition(
      'Fires when the change from the previous run (or the baseline) meets this: `<= -5` in the metric unit (points for percent and fraction metrics), `<= -10%` relative to the baseline. Set this or `value` with `metric`.',
      true,
    ).optional(),
    value: condition(
      'Fires when the value crosses into this range, e.g. `< 45`: only on the run where it crosses (the previous run was outside). Fraction metrics are compared in points (0..100).',
      false,
    ).optional(),
    per: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Break the metric down by a dimension of the metrics layer (engine, intent, competitor…): one check per member. Default: the metric as a whole.',
      ),
    baseline: z
      .enum(['previous', 'mean_of_last_4'])
      .default('previous')
      .describe(
        'What a `change` compares with: the previous run, or the mean of the 4 runs before this one (fewer when fewer are stored). Default previous.',
      ),
    compare_with: comparisonText
      .optional()
      .describe(
        'With `change`: the run the change is measured against, as for reports: `previous`, `N runs` (e.g. `4 runs`) or `N weeks` / `N days` (the stored run nearest that calendar offset; the rule is skipped while none is stored that old). Not with `baseline: mean_of_last_4`. Default previous.',
      ),
    significant: z
      .boolean()
      .default(true)
      .describe(
        "With `change`: fire only on a likely change — judged against sampling noise (Newcombe's hybrid score interval) together with the other figures the rule watches in the run (Holm's procedure at `false_alarm_rate`). `false` fires on any change that meets the condition; metrics without a noise model (Life, ratios, counts, and shares whose answers the data does not give, such as per intent) fire only with `false`. Default true.",
      ),
    false_alarm_rate: z
      .number()
      .gt(0, { error: 'expected a rate above 0, e.g. 0.02' })
      .max(0.2, {
        error: 'expected a rate of at most 0.2 (a rule that fires on every fifth quiet run is no alert)',
      })
      .default(DEFAULT_FALSE_ALARM_RATE)
      .describe(
        `With \`change\`: the chance, per run, that the rule fires on any of the figures it watches when nothing changed (its family-wise error rate; the figures of one run are judged together with Holm's procedure). Default ${DEFAULT_FALSE_ALARM_RATE}: a weekly rule on 15 figures then raises about one false alert in two years.`,
      ),
    for_runs: z
      .number()
      .refine(Number.isInteger, { error: 'expected a whole number of runs, e.g. 2' })
      .refine((n) => n >= 1, { error: 'expected at least 1 run' })
      .refine((n) => n <= 12, { error: 'expected at most 12 runs' })
      .default(1)
      .describe(
        'With `change`: fire only when the change persists — each of the last N runs, measured against the run before the first of them, meets the condition and is a likely change. A step that stays fires once, on the Nth run after it; a blip that reverts never does. Default 1 (fire on the first run).',
      ),
    event: z
      .enum(['new_error', 'competitor_overtakes', 'classification_change'])
      .optional()
      .describe(
        '`new_error`: an entry of the Gravity error register not seen in any earlier stored run; `competitor_overtakes`: a competitor share passes the brand share; `classification_change`: the presence classification changed (e.g. leader → challenger). Set this or `metric`.',
      ),
  })
  .describe('One condition; every rule that fires for one run of a set goes into one message.');

export const alert = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .describe(
        'Unique name of the alert (not also a report name: both key the outbox), used in logs and `history`. Required.',
      ),
    account: z
      .string()
      .min(1)
      .optional()
      .describe('Name of the account to watch. Optional with one account; required when there are several.'),
    query_sets: querySets.describe('Query sets to watch: `all` or a list of query set ids. Default all.'),
    rules: z.array(alertRule).min(1).describe('Conditions; at least one.'),
    // Missed slots do not apply to alerts (they follow new runs, not a clock): no max_delay.
    enabled: lifecycleFields.enabled,
    active_from: lifecycleFields.active_from,
    active_until: lifecycleFields.active_until,
    attach: z
      .array(z.literal('pdf', { error: 'the only attachment is pdf' }))
      .max(1)
      .default([])
      .describe(
        "Files to attach: `[pdf]` adds the set's report for the run, rendered like a report's. Default none (a short email).",
      ),
    email: z
      .strictObject({
        ...recipientFields,
        subject: subjectTemplate
          .default('Alert — {{report}} — {{brand}} — {{query_set}} — {{run}}')
          .describe(
            `Subject line, a Handlebars template with ${SUBJECT_VARIABLES.map((v) => `{{${v}}}`).join(', ')} ({{report}} is the alert name; an alert is about one run, so {{sets}} is 1 and {{period}} the run's label). Default "Alert — {{report}} — {{brand}} — {{query_set}} — {{run}}": one subject per (alert, set, run), so a hundred sets firing at once are a hundred distinguishable emails.`,
          ),
      })
      .optional()
      .describe('Who receives the alert by email. Optional; an alert needs `email`, `channels` or both.'),
    channels: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        'Names of `channels[]` entries that also (or instead) receive the alert: Slack, Teams or a signed `alert.fired` webhook. Default none.',
      ),
  })
  .describe(
    'An alert: rules on the metrics of each new run, sent once per (alert, destination, query set, run).',
  );

export type AlertConfig = z.output<typeof alert>;
export type AlertRuleConfig = z.output<typeof alertRule>;
