import { z } from 'zod';
import { int, isoTimestamp, obj, url } from './common.js';

export const brand = obj({ id: int, name: z.string() });
export const brandsList = z.array(brand);

export const querySetListItem = obj({ id: int, name: z.string(), created_at: isoTimestamp });
export const querySetsList = z.array(querySetListItem);

export const catalogEngine = obj({ id: int, name: z.string(), image: url, ai_model_name: z.string() });

export const querySetDetails = obj({
  query_set_id: int,
  query_set_name: z.string(),
  /** Label of the latest run period. */
  display_name: z.string(),
  created_at: isoTimestamp,
  queries_count: int,
  engines: z.array(catalogEngine),
  /** dd/mm/yyyy */
  date: z.string().regex(/^\d{2}\/\d{2}\/\d{4}$/, 'dd/mm/yyyy'),
});

export const publishedRun = obj({ id: int, display_name: z.string(), created_at: isoTimestamp });
export const runsList = z.array(publishedRun);

export type Brand = z.infer<typeof brand>;
export type QuerySetListItem = z.infer<typeof querySetListItem>;
export type QuerySetDetails = z.infer<typeof querySetDetails>;
export type CatalogEngine = z.infer<typeof catalogEngine>;
export type PublishedRun = z.infer<typeof publishedRun>;
