import type { ChannelResult } from './types.js';

/** Longest Retry-After honoured; a provider asking for more is retried on the outbox's own backoff. */
const MAX_RETRY_AFTER_MS = 60 * 60_000;

/**
 * A provider's HTTP answer as a channel result: 2xx accepted; 429, 408 and 5xx deferred (their
 * Retry-After honoured); any other status refused with the reply in the error, since sending the same
 * request again would get the same answer.
 */
export async function httpResult(response: Response, now: number): Promise<ChannelResult> {
  const body = (await response.text().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, 300);
  const reply = `HTTP ${response.status}${body ? `: ${body}` : ''}`;
  const state = statusState(response.status);
  if (state === 'deferred') {
    const retryAfterMs = retryAfter(response.headers.get('retry-after'), now);
    return { state, reply, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  return { state, reply };
}

/** An HTTP status in the outbox's terms (also used for a status a provider quotes in its body). */
export function statusState(status: number): ChannelResult['state'] {
  if (status >= 200 && status < 300) return 'accepted';
  if (status === 429 || status === 408 || status >= 500) return 'deferred';
  return 'refused';
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in ms from `now`, capped. */
export function retryAfter(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

/** How long a Teams or webhook POST is waited for by default (`timeout_seconds`): past a 35 s answer. */
export const DEFAULT_POST_TIMEOUT_S = 60;

/**
 * POSTs JSON; a network fault or timeout is a deferred result, never a throw. A POST unanswered
 * within `timeoutS` counts as unknown and is retried with the same id: a receiver that did get it
 * sees a second copy, so the timeout is long enough for a slow receiver to answer.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  now: number,
  signal?: AbortSignal,
  /** Reads the answer when a 2xx is not enough to call it accepted (Teams' connectors). */
  judge: (response: Response, now: number) => Promise<ChannelResult> = httpResult,
  timeoutS: number = DEFAULT_POST_TIMEOUT_S,
): Promise<ChannelResult> {
  const timeout = AbortSignal.timeout(timeoutS * 1000);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      // A redirect is answered as what it is (a 3xx, refused) rather than followed to another host with the payload.
      redirect: 'manual',
    });
    return await judge(response, now);
  } catch (error) {
    if (signal?.aborted) throw error;
    return { state: 'deferred', reply: `network: ${networkProblem(error, timeoutS)}` };
  }
}

/** fetch's "fetch failed" says nothing; its cause names the fault (ECONNREFUSED, a reset, the timeout). */
function networkProblem(error: unknown, timeoutS: number): string {
  const err = error as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError') return `no answer within ${timeoutS} s`;
  return err.cause?.code ?? err.cause?.message ?? err.message;
}
