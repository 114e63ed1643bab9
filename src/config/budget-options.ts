import type { ConfigIssue } from '../errors/index.js';
import { budgetKeyFor } from './budget-key.js';

interface AccountBudgetFields {
  name: string;
  base_url: string;
  api_key: string;
  rate_limit: { requests: number; window_seconds: number };
  concurrency: number;
}

/**
 * The server counts requests per API key, so the key has one rate budget in the process, and that
 * budget can follow only one set of options. Two accounts with the same key (on the same server) but
 * a different `rate_limit` or `concurrency` would leave it to chance which one applies; the config is
 * refused instead, naming both places. Runs on the parsed config, where defaults are filled in, so an
 * account that leaves `rate_limit` out is compared as the 120 per 60 s it means.
 */
export function budgetOptionIssues(accounts: readonly AccountBudgetFields[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const first = new Map<string, number>();
  accounts.forEach((account, index) => {
    const key = budgetKeyFor(account);
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, index);
      return;
    }
    const other = accounts[earlier]!;
    const fields: Array<[string, unknown, unknown]> = [
      ['rate_limit.requests', account.rate_limit.requests, other.rate_limit.requests],
      ['rate_limit.window_seconds', account.rate_limit.window_seconds, other.rate_limit.window_seconds],
      ['concurrency', account.concurrency, other.concurrency],
    ];
    for (const [field, mine, theirs] of fields) {
      if (mine === theirs) continue;
      issues.push({
        path: `accounts[${index}].${field}`,
        message: `is ${mine} but accounts[${earlier}].${field} is ${theirs}, with the same api_key on the same server: one key has one rate budget, so give both the same value`,
      });
    }
  });
  return issues;
}
