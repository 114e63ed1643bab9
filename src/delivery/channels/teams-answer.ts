import { httpResult, statusState } from './http-answer.js';
import type { ChannelResult } from './types.js';

/**
 * What a Teams webhook's answer means, per connector type, as Microsoft documents them:
 * - the legacy Office 365 connector (`*.webhook.office.com/webhookb2/…`, `outlook.office.com/webhook/…`)
 *   answers HTTP 200 with the body `1` when the message is posted; it also answers **200 with an
 *   error text** when Teams refused the message ("Webhook message delivery failed with error: Microsoft
 *   Teams endpoint returned HTTP error 413 with ContextId …");
 * - a Power Automate Workflows webhook (`*.logic.azure.com/workflows/…`, `*.powerplatform.com/…`) answers
 *   202 Accepted with an empty body: the flow posts the card afterwards.
 * So a 2xx alone is not "delivered": a 200 whose body is an error text is a failure, permanent or
 * transient as the status it quotes says (413 too large: refused; 429 or 5xx: deferred).
 */
export async function teamsResult(response: Response, connector: TeamsConnector, now: number) {
  const result = await httpResult(response, now);
  if (result.state !== 'accepted') return result;
  const body = result.reply.replace(/^HTTP \d+:? ?/, '');
  return judge(response.status, body, connector, result.reply);
}

export type TeamsConnector = 'office365' | 'workflows';

/** The connector type a webhook URL belongs to (a stand-in or a proxy counts as a Workflows URL). */
export function teamsConnector(url: string): TeamsConnector {
  const { hostname, pathname } = new URL(url);
  if (
    hostname.endsWith('.webhook.office.com') ||
    (hostname === 'outlook.office.com' && pathname.startsWith('/webhook/'))
  )
    return 'office365';
  return 'workflows';
}

/** Error texts Teams and its connectors put in a 2xx body ("…returned HTTP error 413…", "…failed…"). */
const ERROR_TEXT = /\b(?:error|failed|failure)\b/i;
const QUOTED_STATUS = /\bHTTP error (\d{3})\b/i;

function judge(status: number, body: string, connector: TeamsConnector, reply: string): ChannelResult {
  if (body === '1') return { state: 'accepted', reply };
  if (ERROR_TEXT.test(body)) {
    const quoted = QUOTED_STATUS.exec(body);
    // No status quoted: nothing says it would fail again, so it is worth another attempt.
    const state = quoted ? statusState(Number(quoted[1])) : 'deferred';
    return { state: state === 'accepted' ? 'deferred' : state, reply: `Teams answered ${reply}` };
  }
  // The legacy connector's only success body is `1`; anything else from it did not post the card.
  if (connector === 'office365' && status === 200) {
    return { state: 'refused', reply: `Teams answered ${reply} (the connector answers "1" when it posts)` };
  }
  return { state: 'accepted', reply };
}
