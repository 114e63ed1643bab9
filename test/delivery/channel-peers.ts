import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * One local HTTP server that plays the three channel providers as they document their requests, and
 * refuses (HTTP 400 / `ok: false`) anything else, so a test fails on a wrong request, not only on a
 * missing one:
 * - Slack Web API under `/api/`: `Authorization: Bearer <token>` on every method call, chat.postMessage,
 *   then files.getUploadURLExternal → the upload to the URL it returned → files.completeUploadExternal;
 * - a Teams incoming webhook at `/teams/<secret path>`: an Adaptive Card message;
 * - a Standard Webhooks receiver at `/hook` (the test verifies the signature independently).
 * `failNext` scripts answers (status, headers, body) per route before the normal one.
 */
export interface PeerRequest {
  route: string;
  headers: IncomingMessage['headers'];
  /** Form fields or JSON, as the provider would read it. */
  fields: Record<string, unknown>;
  raw: Buffer;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface ChannelPeers {
  url: string;
  slackToken: string;
  teamsPath: string;
  requests: PeerRequest[];
  /** Routes: `chat.postMessage`, `files.getUploadURLExternal`, `upload`, `files.completeUploadExternal`, `teams`, `hook`. */
  failNext: Map<string, ScriptedAnswer[]>;
  /** Slack messages posted (ts → fields), and files completed into a thread (ts → file names). */
  slackMessages: Map<string, Record<string, unknown>>;
  slackThreadFiles: Map<string, string[]>;
  /**
   * Runs after a route did its work and before it answers (the answer waits for it): a test delays
   * the answer (a slow provider), kills the client process there (kill -9 at that step), or throws to
   * drop the connection without an answer.
   */
  beforeAnswer?: (route: string) => Promise<void>;
  /** Requests that reached a route and were answered 2xx. */
  accepted(route: string): PeerRequest[];
  close(): Promise<void>;
}

export async function startChannelPeers(slackToken = 'xoxb-test-0123456789-secret'): Promise<ChannelPeers> {
  const requests: PeerRequest[] = [];
  const ok: PeerRequest[] = [];
  const failNext = new Map<string, ScriptedAnswer[]>();
  const slackMessages = new Map<string, Record<string, unknown>>();
  const slackThreadFiles = new Map<string, string[]>();
  const uploads = new Map<string, { filename: string; length: number; received?: number }>();
  const teamsPath = '/teams/webhookb2/7f3e-secret-path';
  const shares = new Map<string, { channel: string; ts: string }[]>();
  let peers!: ChannelPeers;
  let seq = 0;
  let base = '';

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const route = path.startsWith('/api/')
      ? path.slice('/api/'.length)
      : path.startsWith('/upload/')
        ? 'upload'
        : path === teamsPath
          ? 'teams'
          : path === '/hook'
            ? 'hook'
            : path;
    const fields = parseFields(req.headers['content-type'], raw, route);
    const request: PeerRequest = { route, headers: req.headers, fields, raw };
    requests.push(request);
    const send = async (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (status >= 200 && status < 300) ok.push(request);
      try {
        await peers.beforeAnswer?.(route);
      } catch {
        // The hook says the answer is lost: the connection drops after the work was done.
        res.destroy();
        return;
      }
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const scripted = failNext.get(route)?.shift();
    if (scripted)
      return send(scripted.status, scripted.body ?? '{"ok":false,"error":"scripted"}', scripted.headers);

    if (route.includes('.')) {
      // A Slack Web API method: the token travels as a Bearer header (never in the body).
      if (req.headers.authorization !== `Bearer ${slackToken}`)
        return send(200, { ok: false, error: 'invalid_auth' });
      if (route === 'chat.postMessage') {
        if (
          typeof fields.channel !== 'string' ||
          !Array.isArray(fields.blocks) ||
          typeof fields.text !== 'string'
        ) {
          return send(200, { ok: false, error: 'invalid_arguments' });
        }
        const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;
        slackMessages.set(ts, { ...fields, ts });
        return send(200, { ok: true, channel: fields.channel, ts });
      }
      if (route === 'conversations.history') {
        // Newest first, as Slack lists them; metadata only when asked for (include_all_metadata).
        const withMetadata = fields.include_all_metadata === 'true' || fields.include_all_metadata === true;
        const oldest = Number(fields.oldest ?? 0);
        const messages = [...slackMessages.values()]
          .filter((m) => m.channel === fields.channel && Number(m.ts) >= oldest)
          .reverse()
          .map((m) => ({
            type: 'message',
            ts: m.ts,
            text: m.text,
            ...(withMetadata ? { metadata: m.metadata } : {}),
          }));
        return send(200, { ok: true, messages, has_more: false });
      }
      if (route === 'conversations.replies') {
        // The thread: its parent, then one reply per file completed into it.
        const parent = slackMessages.get(String(fields.ts ?? ''));
        if (!parent || parent.channel !== fields.channel)
          return send(200, { ok: false, error: 'thread_not_found' });
        const files = slackThreadFiles.get(String(parent.ts)) ?? [];
        return send(200, {
          ok: true,
          messages: [
            { type: 'message', ts: parent.ts, text: parent.text },
            ...files.map((name, i) => ({
              type: 'message',
              ts: `${parent.ts}${i + 1}`,
              thread_ts: parent.ts,
              files: [{ name, title: name }],
            })),
          ],
          has_more: false,
        });
      }
      if (route === 'files.info') {
        const id = String(fields.file ?? '');
        if (!uploads.has(id)) return send(200, { ok: false, error: 'file_not_found' });
        const shared = shares.get(id) ?? [];
        const byChannel: Record<string, unknown> = {};
        for (const share of shared) byChannel[share.channel] = [{ ts: share.ts, thread_ts: share.ts }];
        return send(200, {
          ok: true,
          file: {
            id,
            name: uploads.get(id)!.filename,
            ...(shared.length ? { shares: { public: byChannel } } : {}),
          },
        });
      }
      if (route === 'files.getUploadURLExternal') {
        const length = Number(fields.length);
        if (typeof fields.filename !== 'string' || !(length > 0)) {
          return send(200, { ok: false, error: 'invalid_arguments' });
        }
        const fileId = `F${String(++seq).padStart(8, '0')}`;
        uploads.set(fileId, { filename: fields.filename, length });
        return send(200, { ok: true, upload_url: `${base}/upload/${fileId}`, file_id: fileId });
      }
      if (route === 'files.completeUploadExternal') {
        const files = JSON.parse(String(fields.files ?? '[]')) as { id: string }[];
        // Only files whose bytes arrived, in full, can be completed.
        if (
          files.length === 0 ||
          files.some((f) => uploads.get(f.id)?.received !== uploads.get(f.id)?.length)
        ) {
          return send(200, { ok: false, error: 'upload_not_complete' });
        }
        const thread = String(fields.thread_ts ?? '');
        if (!slackMessages.has(thread)) return send(200, { ok: false, error: 'thread_not_found' });
        const names = files.map((f) => uploads.get(f.id)!.filename);
        slackThreadFiles.set(thread, [...(slackThreadFiles.get(thread) ?? []), ...names]);
        for (const f of files)
          shares.set(f.id, [...(shares.get(f.id) ?? []), { channel: String(fields.channel_id), ts: thread }]);
        return send(200, { ok: true, files: files.map((f) => ({ id: f.id })) });
      }
      return send(200, { ok: false, error: 'unknown_method' });
    }
    if (route === 'upload') {
      const id = path.slice('/upload/'.length);
      const upload = uploads.get(id);
      if (!upload) return send(404, 'no such upload');
      // Slack takes the bytes raw or as a multipart/form-data file part (what @slack/web-api sends).
      upload.received = uploadedBytes(req.headers['content-type'], raw).length;
      return send(200, 'OK - uploaded');
    }
    if (route === 'teams') {
      const card = (
        fields.attachments as { contentType?: string; content?: Record<string, unknown> }[] | undefined
      )?.[0];
      const valid =
        fields.type === 'message' &&
        card?.contentType === 'application/vnd.microsoft.card.adaptive' &&
        card.content?.type === 'AdaptiveCard' &&
        card.content.$schema === 'http://adaptivecards.io/schemas/adaptive-card.json' &&
        typeof card.content.version === 'string' &&
        Array.isArray(card.content.body);
      return valid ? send(202, '') : send(400, 'Bad payload: not an Adaptive Card message');
    }
    if (route === 'hook') return send(204, '');
    return send(404, 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  peers = {
    url: base,
    slackToken,
    teamsPath,
    requests,
    failNext,
    slackMessages,
    slackThreadFiles,
    accepted: (route) => ok.filter((r) => r.route === route),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return peers;
}

function parseFields(type: string | undefined, raw: Buffer, route: string): Record<string, unknown> {
  if (route === 'upload' || raw.length === 0) return {};
  const text = raw.toString('utf8');
  if (type?.includes('application/json')) return JSON.parse(text) as Record<string, unknown>;
  const fields: Record<string, unknown> = Object.fromEntries(new URLSearchParams(text));
  // Slack clients send structured arguments as JSON strings inside the form.
  for (const key of ['blocks', 'attachments', 'metadata']) {
    if (typeof fields[key] === 'string') fields[key] = JSON.parse(fields[key] as string);
  }
  return fields;
}

/** The file's bytes: the body itself, or the first part of a multipart/form-data body. */
function uploadedBytes(type: string | undefined, raw: Buffer): Buffer {
  const boundary = /multipart\/form-data;.*boundary=("?)([^";]+)\1/i.exec(type ?? '')?.[2];
  if (!boundary) return raw;
  const start = raw.indexOf('\r\n\r\n', raw.indexOf(`--${boundary}`)) + 4;
  const end = raw.indexOf(`\r\n--${boundary}`, start);
  return raw.subarray(start, end);
}

const VERIFY = fileURLToPath(new URL('./verify-webhook.py', import.meta.url));

/**
 * A webhook request's Standard Webhooks signature checked by Python's hmac (verify-webhook.py), an
 * implementation that shares no code with reportd's: its verdict, `valid` or `invalid`.
 */
export function verifyWebhook(request: PeerRequest, secret: string): string {
  const input = JSON.stringify({
    secret,
    id: request.headers['webhook-id'],
    timestamp: request.headers['webhook-timestamp'],
    signature: request.headers['webhook-signature'],
    body: request.raw.toString('utf8'),
  });
  try {
    return execFileSync('python3', [VERIFY], { input, encoding: 'utf8' }).trim();
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? '').trim() || 'error';
  }
}

/**
 * The `channels:` block of a config for the three stand-ins: Slack `marketing`, Teams `leadership`,
 * webhook `ops`, their secrets read from SLACK_BOT_TOKEN, TEAMS_WEBHOOK_URL and WEBHOOK_SECRET.
 */
export function peersChannelsYaml(peers: ChannelPeers): string {
  return `channels:
  - { name: marketing, type: slack, token: "\${SLACK_BOT_TOKEN}", channel: C0123ABCD, api_url: "${peers.url}/api/", allow_private_network: true }
  - { name: leadership, type: teams, webhook_url: "\${TEAMS_WEBHOOK_URL}", allow_private_network: true }
  - { name: ops, type: webhook, url: "${peers.url}/hook", secret: "\${WEBHOOK_SECRET}", allow_private_network: true }
`;
}

/** The environment `peersChannelsYaml` reads its secrets from. */
export function peersSecrets(peers: ChannelPeers, webhookSecret: string): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: peers.slackToken,
    TEAMS_WEBHOOK_URL: `${peers.url}${peers.teamsPath}`,
    WEBHOOK_SECRET: webhookSecret,
  };
}
