import { scrub } from '../secrets.js';

/**
 * SMTP gives no idempotency and few error classes, so a failed send is sorted by what retrying can
 * change: a 4xx reply or a network fault may pass later (transient); a 5xx reply (unknown mailbox,
 * refused sender, failed auth) will be refused again, so retrying only delays the alarm (permanent).
 */
export interface SmtpFailure {
  kind: 'transient' | 'permanent';
  /** One line for `history` and the logs: what failed and what the server said. */
  reason: string;
}

interface NodemailerError {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  message?: string;
  rejected?: unknown[];
}

export function classifySmtpError(error: unknown): SmtpFailure {
  const failure = classify(error);
  // Also covers the refused addresses, which come from the server's reply too.
  return { ...failure, reason: scrub(failure.reason) };
}

function classify(error: unknown): SmtpFailure {
  const e = (error ?? {}) as NodemailerError;
  // The reply is the server's text, untrusted, and may echo what we sent (AUTH data). It is scrubbed
  // before `oneLine` collapses whitespace or cuts it short, either of which could hide a secret.
  const message = oneLine(scrub(e.response ?? e.message ?? String(error)));
  const code = e.responseCode;
  if (typeof code === 'number' && code >= 500 && code < 600) {
    const what =
      e.code === 'EENVELOPE'
        ? `recipient or sender refused${e.rejected?.length ? ` (${e.rejected.join(', ')})` : ''}`
        : e.code === 'EAUTH'
          ? 'SMTP authentication failed'
          : 'SMTP server refused the message';
    return { kind: 'permanent', reason: `${what}: ${message}` };
  }
  if (typeof code === 'number' && code >= 400 && code < 500) {
    return { kind: 'transient', reason: `SMTP server deferred (${code}): ${message}` };
  }
  // No reply code: the connection failed, timed out or dropped. The server may be back later.
  return { kind: 'transient', reason: `SMTP unreachable${e.code ? ` (${e.code})` : ''}: ${message}` };
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 500);
