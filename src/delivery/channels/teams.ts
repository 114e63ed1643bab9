import type { EmailContent } from '../email.js';
import { alertContext, alertTitle, firingLines } from './alert-text.js';
import { headlineSets, kpiLine, title } from './files.js';
import { postJson } from './http-answer.js';
import type { ChannelAlert, ChannelNotice, ChannelSender } from './types.js';

export interface TeamsChannelConfig {
  name: string;
  /** The incoming webhook / Workflows URL: it is the credential, so it never appears in output. */
  webhook_url: string;
}

/** Adaptive Card schema version: 1.4 is what Teams renders for webhook and Workflows posts. */
export const ADAPTIVE_CARD_VERSION = '1.4';

/**
 * Microsoft Teams through an incoming webhook or a Workflows "post to a channel when a webhook request
 * is received" URL: one message with an Adaptive Card (headline KPIs and their changes). Teams
 * webhooks carry no files, so the card names the files and the email or Slack carries them.
 */
export function createTeamsSender(config: TeamsChannelConfig): ChannelSender {
  return {
    type: 'teams',
    send(delivery, content, signal) {
      return postJson(config.webhook_url, JSON.stringify(teamsMessage(content)), {}, delivery.at, signal);
    },
    notice(notice, signal) {
      return postJson(config.webhook_url, JSON.stringify(teamsNotice(notice)), {}, notice.at, signal);
    },
    alert(delivery, alert, signal) {
      return postJson(config.webhook_url, JSON.stringify(teamsAlert(alert)), {}, delivery.at, signal);
    },
    async preview(_delivery, content) {
      return { method: 'POST', url: '(the channel webhook_url)', body: teamsMessage(content) };
    },
  };
}

/** The message envelope Teams webhooks take, around one Adaptive Card. */
export function teamsMessage(content: EmailContent) {
  // Card text is Markdown-subset; API strings are untrusted, so they go where Markdown is not read
  // (FactSet values render as plain text) or are stripped of link syntax in TextBlocks.
  const body: unknown[] = [
    { type: 'TextBlock', text: plain(title(content)), size: 'Large', weight: 'Bolder', wrap: true },
  ];
  // A digest shows every set's headline, one block of facts per set.
  for (const set of headlineSets(content)) {
    body.push({ type: 'TextBlock', text: plain(set.line), isSubtle: true, spacing: 'None', wrap: true });
    if (set.note) body.push({ type: 'TextBlock', text: plain(set.note), wrap: true });
    if (set.kpis.length > 0) {
      body.push({ type: 'FactSet', facts: set.kpis.map((k) => ({ title: k.label, value: kpiLine(k) })) });
    }
  }
  if (content.summary) body.push({ type: 'TextBlock', text: plain(content.summary), wrap: true });
  return cardMessage(body);
}

/** A failure notice as a card: the title (red while open, green once cleared) and the plain text. */
export function teamsNotice(notice: ChannelNotice) {
  return cardMessage([
    {
      type: 'TextBlock',
      text: plain(notice.title),
      size: 'Large',
      weight: 'Bolder',
      color: notice.event === 'incident.cleared' ? 'Good' : 'Attention',
      wrap: true,
    },
    { type: 'TextBlock', text: plain(notice.text), wrap: true },
  ]);
}

/** An alert as a card: the title in red, the set and runs, each firing's headline and lines. */
export function teamsAlert(alert: ChannelAlert) {
  const body: unknown[] = [
    {
      type: 'TextBlock',
      text: plain(alertTitle(alert)),
      size: 'Large',
      weight: 'Bolder',
      color: 'Attention',
      wrap: true,
    },
    { type: 'TextBlock', text: plain(alertContext(alert)), isSubtle: true, spacing: 'None', wrap: true },
  ];
  for (const firing of alert.firings) {
    body.push({ type: 'TextBlock', text: plain(firing.headline), weight: 'Bolder', wrap: true });
    for (const line of firingLines(firing))
      body.push({ type: 'TextBlock', text: plain(line), spacing: 'None', wrap: true });
  }
  return cardMessage(body);
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
