import { createHmac } from 'node:crypto';
import { webhookKey } from '../../config/channels.js';
import type { EmailContent } from '../content.js';
import { type ChannelFile, channelFiles } from './files.js';
import { postJson } from './http-answer.js';
import type { ChannelAlert, ChannelDelivery, ChannelNotice, ChannelSender } from './types.js';

export interface WebhookChannelConfig {
  name: string;
  url: string;
  /** `whsec_<base64>` (checked when the config loads). */
  secret: string;
  include_files: boolean;
  /** How long one POST is waited for (seconds, default 60). */
  timeout_seconds?: number;
}

/**
 * Signed webhooks as the Standard Webhooks specification (standardwebhooks.com) says, so a receiver
 * verifies them with any of its libraries and no reportd code: `webhook-id` (stable per delivery, so
 * a redelivery after a crash or a timeout is recognisable), `webhook-timestamp` (seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the secret's bytes.
 */
export function createWebhookSender(config: WebhookChannelConfig): ChannelSender {
  const key = webhookKey(config.secret);
  if (!key) throw new Error(`channel ${config.name}: the secret is not a whsec_ secret`);
  const signed = (id: string, at: number, body: string) => {
    const timestamp = String(Math.floor(at / 1000));
    return {
      url: config.url,
      headers: {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': signWebhook(key, id, timestamp, body),
      },
      body,
    };
  };
  const request = async (delivery: ChannelDelivery, content: EmailContent) => {
    const files = await channelFiles(delivery.report, content);
    return signed(
      delivery.id,
      delivery.at,
      JSON.stringify(webhookBody(delivery, content, files, config.include_files)),
    );
  };
  return {
    type: 'webhook',
    async send(delivery, content, signal) {
      const { url, headers, body } = await request(delivery, content);
      return postJson(url, body, headers, delivery.at, signal, undefined, config.timeout_seconds);
    },
    notice(notice, signal) {
      const { url, headers, body } = signed(notice.id, notice.at, JSON.stringify(webhookNoticeBody(notice)));
      return postJson(url, body, headers, notice.at, signal, undefined, config.timeout_seconds);
    },
    alert(delivery, alert, signal) {
      const { url, headers, body } = signed(
        delivery.id,
        delivery.at,
        JSON.stringify(webhookAlertBody(delivery, alert)),
      );
      return postJson(url, body, headers, delivery.at, signal, undefined, config.timeout_seconds);
    },
    async preview(delivery, content) {
      const { url, headers, body } = await request(delivery, content);
      return { method: 'POST', url, headers, body: JSON.parse(body) as unknown };
    },
  };
}

/** `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`. */
export function signWebhook(key: Buffer, id: string, timestamp: string, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The event, in the `{type, timestamp, data}` shape Standard Webhooks recommends. Files are named,
 * sized and hashed; their bytes travel only with `include_files: true` (a receiver that wants them
 * usually wants them small and on purpose).
 */
export function webhookBody(
  delivery: ChannelDelivery,
  content: EmailContent,
  files: readonly ChannelFile[],
  includeFiles: boolean,
) {
  return {
    type: delivery.event,
    timestamp: new Date(delivery.at).toISOString(),
    data: {
      report: delivery.report,
      account: delivery.account,
      brand: content.brand,
      query_set: { id: content.querySet.id, name: content.querySet.name },
      run: { id: content.run.id, label: content.run.display_name },
      kpis: content.kpis.map(kpiOut),
      summary: content.summary ?? null,
      // A digest: every (set, run) it covers with its headline; null for a single set's delivery.
      digest: content.digest
        ? {
            period: content.digest.period,
            sets: content.digest.sets.map((set) => ({
              brand: set.brand,
              query_set: { id: set.querySetId, name: set.querySet },
              run: { id: set.runId, label: set.run },
              kpis: set.kpis.map(kpiOut),
              no_new_run: set.noNewRun !== undefined,
            })),
          }
        : null,
      files: files.map((f) => ({
        name: f.name,
        format: f.format,
        size: f.size,
        sha256: f.sha256,
        ...(includeFiles ? { content_base64: f.bytes.toString('base64') } : {}),
      })),
    },
  };
}

/** `incident.opened` / `incident.cleared`, in the same `{type, timestamp, data}` shape. */
/** A headline KPI as webhook JSON: the judged change's interval and verdict beside it, when it has them. */
function kpiOut(kpi: EmailContent['kpis'][number]) {
  return {
    label: kpi.label,
    value: kpi.value,
    delta: kpi.delta || null,
    interval: kpi.interval ?? null,
    verdict: kpi.verdict ?? null,
  };
}

export function webhookNoticeBody(notice: ChannelNotice) {
  const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  const { incident } = notice;
  return {
    type: notice.event,
    timestamp: new Date(notice.at).toISOString(),
    data: {
      title: notice.title,
      text: notice.text,
      incident: {
        id: incident.id,
        key: incident.key,
        kind: incident.kind,
        report: incident.report,
        detail: incident.detail,
        // The payload's snake_case names are the documented contract, whatever the domain type says.
        opened_at: iso(incident.openedAt),
        cleared_at: iso(incident.clearedAt),
        cleared_detail: incident.clearedDetail,
      },
    },
  };
}

/** `alert.fired`, in the same `{type, timestamp, data}` shape; every firing, as the evaluator stored it. */
export function webhookAlertBody(delivery: ChannelDelivery, alert: ChannelAlert) {
  return {
    type: 'alert.fired' as const,
    timestamp: new Date(delivery.at).toISOString(),
    data: {
      alert: alert.alert,
      account: alert.account,
      brand: alert.brand,
      query_set: { id: alert.querySet.id, name: alert.querySet.name },
      run: { id: alert.run.id, label: alert.run.label },
      previous_run: alert.previousRun.id
        ? { id: alert.previousRun.id, label: alert.previousRun.label }
        : null,
      firings: alert.firings.map((f) => ({
        kind: f.kind,
        headline: f.headline,
        // The id for machines beside the name for people; interval in points, n in answers.
        metric: f.metric ?? null,
        metric_name: f.metricName ?? null,
        member: f.member ?? null,
        // Each change's own baseline (`compare_with`); `previous_run` above is only the run before.
        compared_with: f.comparedWith ?? null,
        significance: f.significance ?? null,
        interval: f.interval ?? null,
        interval_level: f.level ?? null,
        p: f.p ?? null,
        q: f.q ?? null,
        family_size: f.familySize ?? null,
        for_runs: f.forRuns ?? null,
        n: f.n ?? null,
        before: f.before ?? null,
        after: f.after ?? null,
        change: f.change ?? null,
        errors: f.errors ?? [],
      })),
    },
  };
}
