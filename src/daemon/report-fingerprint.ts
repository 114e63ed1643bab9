import { createHash } from 'node:crypto';
import type { Config } from '../config/index.js';

/**
 * A report's fingerprint: a short hash of its effective definition, so daemons sharing a store can
 * tell whether they serve one report name the same way (definition-watch.ts) without storing or
 * showing the definition. The input is the parsed entry (defaults already filled in by the schema,
 * so a default written out and one left implicit hash alike), with keys sorted (order in the YAML
 * does not matter), plus what outside the entry changes what is sent: the templates folder, the
 * sender, and the type of each channel it posts to.
 *
 * No secret enters the hash: a report names its account and channels, it does not hold their keys or
 * webhook URLs, and those are left out (a guessable secret behind a hash would be one brute force
 * away). A changed key therefore never reads as a different definition, which is intended.
 */
export function reportFingerprint(config: Config, name: string): string | undefined {
  const report = config.reports.find((r) => r.name === name);
  if (!report) return undefined;
  const channels = (report.channels ?? []).map((channel) => ({
    name: channel,
    type: config.channels.find((c) => c.name === channel)?.type ?? null,
  }));
  const definition = {
    report,
    templatesDir: config.templates.dir ?? null,
    from: config.smtp?.from ?? null,
    channels,
  };
  return createHash('sha256').update(canonicalJson(definition)).digest('hex').slice(0, 16);
}

/** Every report of `config` by name → fingerprint. */
export function reportFingerprints(config: Config): Map<string, string> {
  const out = new Map<string, string>();
  for (const report of config.reports) {
    const fingerprint = reportFingerprint(config, report.name);
    if (fingerprint) out.set(report.name, fingerprint);
  }
  return out;
}

/** JSON with object keys sorted at every level and undefined members dropped (JSON.stringify's rule). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  });
}
