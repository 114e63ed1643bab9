/**
 * One locale's table of the names people read for metrics (alerts on every channel, the movers, the
 * workbook's Data sheet, the export's `label` column, the story). Keys are `<endpoint>|<field>`, as in
 * the metric rows; `{name}` and `{member}` in the patterns are filled by metric-names.ts.
 */
export interface MetricNameTable {
  /** `<endpoint>|<field>` → the metric's name ("Gross presence"). */
  readonly names: Readonly<Record<string, string>>;
  /** How a metric reads for one member of a dimension ("Gross presence on ChatGPT"). */
  readonly member: Readonly<
    Record<'engine' | 'intent' | 'competitor' | 'source' | 'category' | 'stance' | 'engine_intent', string>
  >;
  /** A field that is the API's own change of a metric ("Change in Gross presence"). */
  readonly change: string;
  /** The previous run's value as a later payload repeats it. */
  readonly previous: string;
  /** Stance ids (`recommended`…) and source categories (`owned`…) as words. */
  readonly stances: Readonly<Record<string, string>>;
  readonly categories: Readonly<Record<string, string>>;
}
