import { companyCredentials, companyOfSet } from './dataset/companies.js';
import { extraSets } from './dataset/extra-sets.js';
import { createDataset, type PublishOptions, type SandboxDataset } from './dataset.js';

export interface CompanyRegistryOptions {
  /** Company 1's credential; company c > 1 gets `${apiKey}-c` / `${apiSecret}-c`. */
  apiKey: string;
  apiSecret: string;
  companies: number;
  hostile?: boolean;
  quiet?: boolean;
  extraSets?: number;
}

/**
 * The companies one sandbox serves: which company a key belongs to, and each company's data set.
 * Ids never collide across companies (dataset/companies.ts), so a set id names its company.
 */
export interface CompanyRegistry {
  readonly companies: number;
  /** The credential of company 1..companies. */
  credentials(company: number): { apiKey: string; apiSecret: string };
  /** The company that answers to this key, and the secret it expects with it. */
  ownerOf(apiKey: string): { secret: string; company: number } | undefined;
  /** The company's data set, built on first use. */
  datasetOf(company: number): SandboxDataset;
  /** Publishes the next run of a set in whichever company owns it. */
  publishRun(
    querySetId: number,
    options?: PublishOptions,
  ): { id: number; display_name: string; created_at: string };
}

/** Checks the options (throwing a RangeError for a bad one) and builds no data set yet. */
export function companyRegistry(options: CompanyRegistryOptions): CompanyRegistry {
  const { companies } = options;
  if (!Number.isSafeInteger(companies) || companies < 1) {
    throw new RangeError(`sandbox: companies must be a whole number >= 1 (got ${companies})`);
  }
  // Checked now, not on the first request: a bad option is the test's mistake, not an API failure.
  extraSets(options.extraSets ?? 0);
  const base = { apiKey: options.apiKey, apiSecret: options.apiSecret };
  const credentials = (company: number) => {
    if (!(company >= 1 && company <= companies)) throw new RangeError(`sandbox: no company ${company}`);
    return companyCredentials(company, base);
  };
  // Key → its company; a company's data set is built on its first request, so 200 cost nothing idle.
  const companyOfKey = new Map<string, { secret: string; company: number }>();
  for (let company = 1; company <= companies; company++) {
    const c = credentials(company);
    companyOfKey.set(c.apiKey, { secret: c.apiSecret, company });
  }
  const datasets = new Map<number, SandboxDataset>();
  const datasetOf = (company: number): SandboxDataset => {
    let ds = datasets.get(company);
    if (!ds) {
      ds = createDataset({
        hostile: options.hostile,
        quiet: options.quiet,
        extraSets: options.extraSets,
        company,
      });
      datasets.set(company, ds);
    }
    return ds;
  };
  return {
    companies,
    credentials,
    ownerOf: (apiKey) => companyOfKey.get(apiKey),
    datasetOf,
    publishRun: (querySetId, publish) => {
      const company = companyOfSet(querySetId);
      if (company > companies)
        throw new Error(`sandbox: query set ${querySetId} is in no company of this sandbox`);
      return datasetOf(company).publishRun(querySetId, publish);
    },
  };
}
