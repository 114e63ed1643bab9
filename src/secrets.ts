/**
 * Every secret reportd loads (API secrets, SMTP passwords) is registered here, and everything that
 * leaves the process as text (log lines, CLI error messages) passes through `scrub`. Redacting by
 * value catches what redacting by field name cannot: a secret inside a URL or an exception message.
 */
const known = new Set<string>();

export const REDACTED = '[redacted]';

export function registerSecret(value: string | undefined | null): void {
  // Very short values would redact ordinary words; real secrets are longer.
  if (value && value.length >= 4) known.add(value);
  if (value && value.length >= 4) {
    const encoded = encodeURIComponent(value);
    if (encoded !== value) known.add(encoded);
  }
}

export function scrub(text: string): string {
  let out = text;
  for (const secret of known) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** For tests: forget every registered secret. */
export function clearSecrets(): void {
  known.clear();
}
