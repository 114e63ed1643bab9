import { describe, expect, it } from 'vitest';
import { captureViews } from '../../scripts/view-samples.js';
import { digestViewSchema, marginViewSchema, reportViewSchema } from '../../src/report/check/view-schema.js';

/**
 * The published view schema (what `templates check` reads variables against) describes the views
 * templates really get: a key added to html.ts or digest/html.ts fails here until the schema is
 * generated again (`npx tsx scripts/gen-view-schema.ts`).
 */
describe('view model schema', () => {
  it('parses every captured view, strictly', () => {
    const views = captureViews();
    expect(views.report.length).toBeGreaterThan(3);
    for (const view of views.report) expect(reportViewSchema.safeParse(view).error).toBeUndefined();
    for (const view of views.digest) expect(digestViewSchema.safeParse(view).error).toBeUndefined();
    for (const view of views.margin) expect(marginViewSchema.safeParse(view).error).toBeUndefined();
  });

  it('fails on a key the schema does not know', () => {
    const [view] = captureViews().report;
    expect(reportViewSchema.safeParse({ ...(view as object), extra: 1 }).success).toBe(false);
  });
});
