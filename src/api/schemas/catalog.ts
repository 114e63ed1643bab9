import { z } from 'zod';
import { int, isoTimestamp, obj, url } from './common.js';

/**
 * A catalog field the reports do not depend on: checked, but a drifted value (another date format, a
 * number) is kept as text instead of failing the whole list. Refusing it would stop every run of the
 * set from syncing over a label; newestRunFirst falls back to run ids when a date does not parse, and
 * the cover shows a date it cannot read as written.
 */
const tolerated = (schema: z.ZodString) =>
  schema.catch((ctx) => (typeof ctx.input === 'string' ? ctx.input : ''));

export const brand = obj({ id: int, name: z.string() });
export const brandsList = z.array(brand);

export const querySetListItem = obj({ id: int, name: z.string(), created_at: tolerated(isoTimestamp) });
export const querySetsList = z.array(querySetListItem);

export const catalogEngine = obj({ id: int, name: z.string(), image: url, ai_model_name: z.string() });

export const querySetDetails = obj({
  query_set_id: int,
  query_set_name: z.string(),
  /** Label of the latest run period. */
  display_name: z.string(),
  created_at: tolerated(isoTimestamp),
  queries_count: int,
  engines: z.array(catalogEngine),
  /** dd/mm/yyyy */
  date: tolerated(z.string().regex(/^\d{2}\/\d{2}\/\d{4}$/, 'dd/mm/yyyy')),
});

export const publishedRun = obj({ id: int, display_name: z.string(), created_at: tolerated(isoTimestamp) });
export const runsList = z.array(publishedRun);

export type Brand = z.infer<typeof brand>;
export type QuerySetListItem = z.infer<typeof querySetListItem>;
export type QuerySetDetails = z.infer<typeof querySetDetails>;
export type CatalogEngine = z.infer<typeof catalogEngine>;
export type PublishedRun = z.infer<typeof publishedRun>;
