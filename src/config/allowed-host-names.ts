import { createRequire } from 'node:module';

/**
 * tldts carries the Public Suffix List (~190 KB of code): loaded on the first name to judge, so a
 * config without `http.allowed_hosts` (and `reportd check` on it) does not pay for it.
 */
let tldts: typeof import('tldts') | undefined;
const suffixes = () => (tldts ??= createRequire(import.meta.url)('tldts') as typeof import('tldts'));

/**
 * Why a configured name cannot be allowed, or undefined when it can: a bare wildcard, or a public
 * suffix (`.com`, `.co.uk`, `github.io`; the Public Suffix List, through tldts) — allowing one lets
 * every site registered under it name this server as `Host`, which is the rebinding the check exists
 * to stop. The config refuses such names in `check` (config/schema.ts).
 */
export function unsafeAllowedName(name: string): string | undefined {
  const allowed = name
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  const domain = allowed.replace(/^\*?\./, '');
  if (domain === '' || /^[*.]+$/.test(allowed) || domain.includes('*'))
    return `${JSON.stringify(name)} allows every name: list the names of this server instead`;
  // Only a suffix the list knows: a single-label name it does not (a Kubernetes service `reportd`) is a name.
  const { publicSuffix, isIcann, isPrivate } = suffixes().parse(domain, { allowPrivateDomains: true });
  if (publicSuffix === domain && (isIcann === true || isPrivate === true))
    return `${JSON.stringify(name)} is a public suffix: every site under it could reach this server (DNS rebinding); list this server's own name instead`;
  return undefined;
}
