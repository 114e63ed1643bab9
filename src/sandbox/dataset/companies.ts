import { BRANDS, type BrandDef, COMPANY_ID, QUERY_SETS, type QuerySetDef } from './catalog.js';
import { extraSets } from './extra-sets.js';

/**
 * The companies of a multi-company sandbox (`--companies N`): company 1 is the demo company exactly
 * as tests and docs know it; company c > 1 is a copy of it with every id shifted by a per-company
 * stride and every name suffixed. The metric values follow by themselves, since they are hashed from
 * the set's id (see rng.ts): each company gets its own numbers, deterministically, and building a
 * company costs a handful of objects, so 200 of them are cheap.
 *
 * Ids never collide across companies, as in the real service where ids are global and only the scope
 * is per credential: company 3 asking for company 2's set gets the spec's -132, not someone's data.
 */

/** Set ids of company c are the demo's plus (c - 1) × this; the demo's are all below it. */
export const SET_ID_STRIDE = 1000;
const BRAND_ID_STRIDE = 10;
/** Run ids are global in a data set; this leaves each company room for many published runs. */
const RUN_ID_STRIDE = 100_000;
/** The demo company's first run id (company 1's, so every existing id stays as it was). */
const FIRST_RUN_ID = 4821;

export interface CompanyCatalog {
  companyId: number;
  brands: readonly BrandDef[];
  /** The sets the data set holds, including one of another company (for -132). */
  sets: readonly QuerySetDef[];
  firstRunId: number;
}

/** Credentials of company c: company 1 keeps the base key and secret, c > 1 gets `-c` appended. */
export function companyCredentials(
  company: number,
  base: { apiKey: string; apiSecret: string },
): { apiKey: string; apiSecret: string } {
  return company === 1
    ? { ...base }
    : { apiKey: `${base.apiKey}-${company}`, apiSecret: `${base.apiSecret}-${company}` };
}

/** The catalog of company `company`, with `extra` more sets of its first brand (see extra-sets.ts). */
export function companyCatalog(company: number, extra = 0): CompanyCatalog {
  if (!Number.isSafeInteger(company) || company < 1) throw new RangeError(`sandbox: no company ${company}`);
  const sets = extra > 0 ? [...QUERY_SETS, ...extraSets(extra)] : QUERY_SETS;
  if (company === 1) {
    return { companyId: COMPANY_ID, brands: BRANDS, sets, firstRunId: FIRST_RUN_ID };
  }
  const shift = company - 1;
  const suffix = ` #${company}`;
  return {
    companyId: company,
    brands: BRANDS.map((b) => ({ ...b, id: b.id + shift * BRAND_ID_STRIDE, name: b.name + suffix })),
    sets: sets.map((def) => ({
      ...def,
      id: def.id + shift * SET_ID_STRIDE,
      brandId: def.brandId + shift * BRAND_ID_STRIDE,
      // The demo's foreign set stays someone else's: never the company's own.
      companyId: def.companyId === COMPANY_ID ? company : -company,
      name: def.name + suffix,
    })),
    firstRunId: FIRST_RUN_ID + shift * RUN_ID_STRIDE,
  };
}

/** The company whose id range holds a set id (its own set, or the foreign one it holds for -132). */
export function companyOfSet(querySetId: number): number {
  return Math.floor(querySetId / SET_ID_STRIDE) + 1;
}
