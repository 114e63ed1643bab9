import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Teams incoming webhook as Microsoft documents each connector type answering, on a local port:
 * - `office365` (the legacy connector): HTTP 200 with the body `1` when the card is posted; a card over
 *   the size limit gets **HTTP 200** with the connector's error text ("Webhook message delivery failed
 *   with error: Microsoft Teams endpoint returned HTTP error 413 with ContextId …");
 * - `workflows` (Power Automate "when a Teams webhook request is received"): 202 Accepted with an empty
 *   body for any well-formed request; the flow then posts the card, or fails to when it is too large,
 *   which the sender never hears of (so `posted` is what reached the channel).
 * Both refuse (HTTP 400) a body that is not an Adaptive Card message, and enforce the documented
 * 28 KB message size limit. `failNext` scripts answers before the normal one.
 */
export const TEAMS_LIMIT_BYTES = 28 * 1024;

export interface TeamsPeer {
  url: string;
  /** Bodies received, and cards that reached the channel. */
  received: { headers: IncomingMessage['headers']; bytes: number; body: Record<string, unknown> }[];
  posted: Record<string, unknown>[];
  failNext: { status: number; body: string }[];
  close(): Promise<void>;
}

export async function startTeamsPeer(connector: 'office365' | 'workflows'): Promise<TeamsPeer> {
  const received: TeamsPeer['received'] = [];
  const posted: TeamsPeer['posted'] = [];
  const failNext: TeamsPeer['failNext'] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(body);
    };
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return answer(400, 'Bad payload received by generic incoming webhook.');
    }
    received.push({ headers: req.headers, bytes: raw.length, body });
    const scripted = failNext.shift();
    if (scripted) return answer(scripted.status, scripted.body);
    const card = (
      body.attachments as { contentType?: string; content?: Record<string, unknown> }[] | undefined
    )?.[0];
    const valid =
      req.method === 'POST' &&
      req.headers['content-type']?.startsWith('application/json') &&
      body.type === 'message' &&
      card?.contentType === 'application/vnd.microsoft.card.adaptive' &&
      card.content?.type === 'AdaptiveCard' &&
      Array.isArray(card.content.body);
    if (!valid) return answer(400, 'Bad payload received by generic incoming webhook.');
    const tooLarge = raw.length > TEAMS_LIMIT_BYTES;
    if (connector === 'workflows') {
      if (!tooLarge) posted.push(body);
      return answer(202, '');
    }
    if (tooLarge) {
      return answer(
        200,
        'Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 413 with ContextId tcid=0,server=stand-in,cv=x',
      );
    }
    posted.push(body);
    return answer(200, '1');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhookb2/1f2e-secret-part/IncomingWebhook/abc/def`,
    received,
    posted,
    failNext,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
