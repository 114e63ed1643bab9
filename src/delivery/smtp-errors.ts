import type { RecipientOutcome } from '../outbox/recipients.js';
import { scrub } from '../secrets.js';
import { refusalsOf, type SmtpRefusal } from './destinations/smtp-mailer.js';

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

/**
 * How each recipient of one attempt came out. A send that resolved: the accepted are done, each
 * rejected one is deferred (4xx, or no code: it may pass later) or refused (5xx). A send that threw
 * because every recipient was refused at RCPT TO: the same per recipient. Any other throw is about
 * the whole message and returns undefined (the caller retries or fails the attempt as before).
 */
export function recipientOutcomes(
  tried: readonly string[],
  result: { accepted: readonly string[]; refusals?: readonly SmtpRefusal[] } | { error: unknown },
): RecipientOutcome[] | undefined {
  let accepted: readonly string[];
  let refusals: readonly SmtpRefusal[];
  if ('error' in result) {
    const e = (result.error ?? {}) as NodemailerError & { rejectedErrors?: unknown };
    if (e.code !== 'EENVELOPE' || !Array.isArray(e.rejectedErrors) || e.rejectedErrors.length === 0) {
      return undefined;
    }
    accepted = [];
    refusals = refusalsOf(e.rejectedErrors);
  } else {
    accepted = result.accepted;
    refusals = result.refusals ?? [];
  }
  const key = (address: string) => address.toLowerCase();
  const acceptedSet = new Set(accepted.map(key));
  const refusalOf = new Map(refusals.map((r) => [key(r.recipient), r]));
  return tried.map((recipient): RecipientOutcome => {
    if (acceptedSet.has(key(recipient))) return { recipient, state: 'accepted', reply: null };
    const refusal = refusalOf.get(key(recipient));
    const reply = refusal ? oneLine(scrub(refusal.reply)) : 'no reply for this recipient';
    const permanent = refusal?.code !== undefined && refusal.code >= 500 && refusal.code < 600;
    return { recipient, state: permanent ? 'refused' : 'deferred', reply };
  });
}
