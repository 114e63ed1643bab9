/**
 * Every secret reportd loads (API secrets, SMTP passwords) is registered here, and everything that
 * leaves the process as text (log lines, CLI error messages, error text written to the store) passes
 * through `scrub`. Redacting by value catches what redacting by field name cannot: a secret inside a
 * URL or an exception message.
 */
const known = new Set<string>();
/** `known` as one alternation, longest first; rebuilt lazily after a registration. */
let pattern: RegExp | undefined;

export const REDACTED = '[redacted]';

export function registerSecret(value: string | undefined | null): void {
  // Very short values would redact ordinary words; real secrets are longer.
  if (!value || value.length < 4) return;
  add(value);
  // A secret inside a URL appears percent-encoded.
  add(encodeURIComponent(value));
  // The logger scrubs the serialised JSON line, where `"`, `\` and control characters are escaped.
  add(JSON.stringify(value).slice(1, -1));
  // Base64 carries secrets too (HTTP Basic, SMTP AUTH PLAIN/LOGIN in a protocol trace).
  for (const form of base64Forms(value)) add(form);
}

/**
 * The base64 text that encodes `value` wherever it sits in a longer encoded string. A secret starts at
 * byte offset 0, 1 or 2 of a 3-byte group, and each alignment encodes it differently; for each, only
 * the characters that depend on the secret's bytes alone are kept (the first and last may mix with
 * neighbouring bytes). In standard and URL-safe alphabets. Short forms are skipped: they would redact
 * ordinary text.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    const form = encoded.slice(first, last);
    if (form.length < 8) continue;
    forms.push(form, form.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

function add(form: string): void {
  if (known.has(form)) return;
  known.add(form);
  pattern = undefined;
}

export function scrub(text: string): string {
  if (known.size === 0) return text;
  // Longest first and in one pass: a short secret that is a prefix of a longer one must not be cut
  // out first and leave the longer one's tail in clear, and a replacement is never matched again.
  pattern ??= new RegExp(
    [...known]
      .sort((a, b) => b.length - a.length)
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  return text.replace(pattern, REDACTED);
}

/** `scrub` for the nullable error columns of the store. */
export function scrubOrNull(text: string | null): string | null {
  return text === null ? null : scrub(text);
}

/** For tests: forget every registered secret. */
export function clearSecrets(): void {
  known.clear();
  pattern = undefined;
}
