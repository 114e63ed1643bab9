import type { KnownBlock } from '@slack/web-api';
import type { EmailContent } from '../content.js';
import { alertContext, alertTitle, firingLines } from './alert-text.js';
import { clip, headlineSets, kpiLine, title } from './files.js';
import type { ChannelAlert, ChannelDelivery, ChannelNotice } from './types.js';

/**
 * Block Kit: a header, the set and run, the KPIs as fields. Every API string goes into `plain_text`
 * objects, which Slack never reads as markup, so a brand name cannot mention @channel or link out.
 */
export function slackBlocks(_delivery: ChannelDelivery, content: EmailContent): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(title(content), 150) } },
  ];
  // A digest shows every set's headline; Slack takes at most 50 blocks per message.
  for (const set of headlineSets(content)) {
    blocks.push({ type: 'context', elements: [{ type: 'plain_text', text: clip(set.line, 2000) }] });
    if (set.note) {
      blocks.push({ type: 'section', text: { type: 'plain_text', text: clip(set.note, 3000) } });
    }
    // A section holds at most 10 fields.
    for (let i = 0; i < set.kpis.length; i += 10) {
      blocks.push({
        type: 'section',
        fields: set.kpis
          .slice(i, i + 10)
          .map((k) => ({ type: 'plain_text', text: clip(`${k.label}: ${kpiLine(k)}`, 2000) })),
      });
    }
  }
  if (content.summary) {
    blocks.push({ type: 'section', text: { type: 'plain_text', text: clip(content.summary, 3000) } });
  }
  return blocks.slice(0, 50);
}

/** A failure notice: a header and the text, both `plain_text` (the text quotes API replies). */
export function slackNoticeBlocks(notice: ChannelNotice): KnownBlock[] {
  return [
    { type: 'header', text: { type: 'plain_text', text: clip(notice.title, 150) } },
    { type: 'section', text: { type: 'plain_text', text: clip(notice.text, 3000) } },
  ];
}

/** An alert: a header, the set and runs, one section per firing; all `plain_text` (API strings). */
export function slackAlertBlocks(alert: ChannelAlert): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(alertTitle(alert), 150) } },
    { type: 'context', elements: [{ type: 'plain_text', text: clip(alertContext(alert), 2000) }] },
  ];
  // Slack takes at most 50 blocks; the email and webhook carry every firing.
  for (const firing of alert.firings.slice(0, 45)) {
    const text = [firing.headline, ...firingLines(firing)].join('\n');
    blocks.push({ type: 'section', text: { type: 'plain_text', text: clip(text, 3000) } });
  }
  return blocks;
}

/** `text` is mrkdwn (the notification fallback): `&`, `<` and `>` are Slack's control characters. */
export function mrkdwnEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
