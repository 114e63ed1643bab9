import type { EmailContent } from '../content.js';
import { alertContext, alertTitle, firingLines } from './alert-text.js';
import { clip, headlineSets, kpiLine, title } from './files.js';
import { postJson } from './http-answer.js';
import { teamsConnector, teamsResult } from './teams-answer.js';
import { fitCard } from './teams-card-size.js';
import type { ChannelAlert, ChannelNotice, ChannelSender } from './types.js';

export interface TeamsChannelConfig {
  name: string;
  /** The incoming webhook / Workflows URL: it is the credential, so it never appears in output. */
  webhook_url: string;
  /** How long one POST is waited for (seconds, default 60). */
  timeout_seconds?: number;
}

/** Adaptive Card schema version: 1.4 is what Teams renders for webhook and Workflows posts. */
export const ADAPTIVE_CARD_VERSION = '1.4';

/**
 * Microsoft Teams through an incoming webhook or a Workflows "post to a channel when a webhook request
 * is received" URL: one message with an Adaptive Card (headline KPIs and their changes). Teams
 * webhooks carry no files, so the card names the files and the email or Slack carries them.
 */
export function createTeamsSender(config: TeamsChannelConfig): ChannelSender {
  const connector = teamsConnector(config.webhook_url);
  const post = (message: unknown, at: number, signal?: AbortSignal) =>
    postJson(
      config.webhook_url,
      JSON.stringify(message),
      JSON_UTF8,
      at,
      signal,
      (response, now) => teamsResult(response, connector, now),
      config.timeout_seconds,
    );
  return {
    type: 'teams',
    send(delivery, content, signal) {
      return post(teamsMessage(content), delivery.at, signal);
    },
    notice(notice, signal) {
      return post(teamsNotice(notice), notice.at, signal);
    },
    alert(delivery, alert, signal) {
      return post(teamsAlert(alert), delivery.at, signal);
    },
    async preview(_delivery, content) {
      return { method: 'POST', url: '(the channel webhook_url)', body: teamsMessage(content) };
    },
  };
}

/**
 * Said where the JSON is UTF-8: without a charset the legacy connector has been seen to measure the body
 * as UTF-16, halving the room a card has.
 */
const JSON_UTF8 = { 'content-type': 'application/json; charset=utf-8' };

/**
 * The message envelope Teams webhooks take, around one Adaptive Card. A digest shows every set's
 * headline while the card fits Teams' size limit (teams-card-size.ts); past it, the sets in the
 * digest's order up to the limit and a last line "…and N more query sets", since Teams carries no
 * file: the full digest is the report's PDF and workbook on its other destinations.
 */
export function teamsMessage(content: EmailContent) {
  // Card text is Markdown-subset; API strings are untrusted, so they go where Markdown is not read
  // (FactSet values render as plain text) or are stripped of link syntax in TextBlocks.
  const head = [
    {
      type: 'TextBlock',
      text: plain(clip(title(content), 500)),
      size: 'Large',
      weight: 'Bolder',
      wrap: true,
    },
  ];
  const groups = headlineSets(content).map((set) => {
    const blocks: unknown[] = [
      { type: 'TextBlock', text: plain(clip(set.line, 500)), isSubtle: true, spacing: 'None', wrap: true },
    ];
    if (set.note) blocks.push({ type: 'TextBlock', text: plain(clip(set.note, 500)), wrap: true });
    if (set.kpis.length > 0) {
      blocks.push({ type: 'FactSet', facts: set.kpis.map((k) => ({ title: k.label, value: kpiLine(k) })) });
    }
    return blocks;
  });
  const tail = content.summary
    ? [{ type: 'TextBlock', text: plain(clip(content.summary, 2000)), wrap: true }]
    : [];
  const more = (left: number) => ({
    type: 'TextBlock',
    text: `…and ${left} more query ${left === 1 ? 'set' : 'sets'}: the full digest is the report's PDF and workbook.`,
    weight: 'Bolder',
    wrap: true,
  });
  return fitCard({ head, groups, tail, more }, cardMessage).message;
}

/** A failure notice as a card: the title (red while open, green once cleared) and the plain text. */
export function teamsNotice(notice: ChannelNotice) {
  return cardMessage([
    {
      type: 'TextBlock',
      text: plain(clip(notice.title, 500)),
      size: 'Large',
      weight: 'Bolder',
      color: notice.event === 'incident.cleared' ? 'Good' : 'Attention',
      wrap: true,
    },
    // The text quotes provider replies; clipped so a notice always fits the card size limit.
    { type: 'TextBlock', text: plain(clip(notice.text, 8000)), wrap: true },
  ]);
}

/**
 * An alert as a card: the title in red, the set and runs, each firing's headline and lines; past the
 * size limit, the firings that fit and "…and N more firings" (the email and webhook carry them all).
 */
export function teamsAlert(alert: ChannelAlert) {
  const head: unknown[] = [
    {
      type: 'TextBlock',
      text: plain(clip(alertTitle(alert), 500)),
      size: 'Large',
      weight: 'Bolder',
      color: 'Attention',
      wrap: true,
    },
    {
      type: 'TextBlock',
      text: plain(clip(alertContext(alert), 1000)),
      isSubtle: true,
      spacing: 'None',
      wrap: true,
    },
  ];
  const groups = alert.firings.map((firing) => [
    { type: 'TextBlock', text: plain(clip(firing.headline, 1000)), weight: 'Bolder', wrap: true },
    ...firingLines(firing).map((line) => ({
      type: 'TextBlock',
      text: plain(clip(line, 1000)),
      spacing: 'None',
      wrap: true,
    })),
  ]);
  const more = (left: number) => ({
    type: 'TextBlock',
    text: `…and ${left} more ${left === 1 ? 'firing' : 'firings'}: the alert's email and webhook carry every one.`,
    weight: 'Bolder',
    wrap: true,
  });
  return fitCard({ head, groups, tail: [], more }, cardMessage).message;
}

/** The message envelope Teams webhooks take, around one Adaptive Card of `body`. */
function cardMessage(body: unknown[]) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: ADAPTIVE_CARD_VERSION,
          body,
        },
      },
    ],
  };
}

/** Link syntax in untrusted text is escaped, so an API string cannot become a clickable link. */
function plain(text: string): string {
  return text.replace(/[[\]]/g, (c) => `\\${c}`);
}
