import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRules } from '../../src/alerts/evaluate.js';
import type { AlertContent } from '../../src/alerts/run-alerts.js';
import type { RunFacts } from '../../src/alerts/run-facts.js';
import { alert as alertSection } from '../../src/config/alert-section.js';
import { createSlackSender } from '../../src/delivery/channels/slack.js';
import { createTeamsSender } from '../../src/delivery/channels/teams.js';
import { createWebhookSender } from '../../src/delivery/channels/webhook.js';
import { composeAlertEmail } from '../../src/delivery/compose/alert-email.js';
import { toChannelAlert } from '../../src/delivery/deliver-alert.js';
import { type ChannelPeers, startChannelPeers } from '../delivery/channel-peers.js';
import { factRow } from './fact-rows.js';

/**
 * An alert whose change rule says `compare_with: 4 runs` measures against the run 4 back, not the
 * previous one: the email's intro, the Slack and Teams context line and the webhook's firing must name
 * that run, and name each baseline once when rules of one alert compare with different runs. Sent to
 * the stand-in Slack, Teams and webhook receivers over HTTP.
 */

let peers: ChannelPeers;
beforeAll(async () => {
  peers = await startChannelPeers();
});
afterAll(async () => {
  await peers?.close();
});

const row = factRow;

/** Weekly runs of gross presence on 1,200 answers each: a slow slide, real over four weeks. */
const history: RunFacts[] = [50, 48, 46, 44, 38].map((gross, i) => ({
  runId: i + 1,
  label: `Week ${i + 1} · 2026`,
  createdAt: new Date(Date.UTC(2026, 0, 5 + 7 * i)).toISOString(),
  rows: [
    row('presence.gross', 'current', gross, 'percent'),
    row('presence.position-distribution', 'totalAll', 1200, 'count'),
  ],
}));

function fired(rules: unknown[]): { config: ReturnType<typeof alertSection.parse>; content: AlertContent } {
  const config = alertSection.parse({ name: 'slow-slide', rules, email: { to: ['cmo@example.com'] } });
  const { firings, skipped } = evaluateRules(config.rules, history);
  expect(skipped).toEqual([]);
  const [previous, current] = history.slice(-2);
  // As evaluateSet builds it: the run under evaluation and the one stored before it.
  const content: AlertContent = {
    alert: config.name,
    account: 'acme',
    querySetId: 101,
    querySet: 'Core buying journeys',
    brand: 'Northwind Coffee',
    run: { id: current!.runId, label: current!.label },
    previousRun: { id: previous!.runId, label: previous!.label },
    firings,
  };
  return { config, content };
}

const emailText = ({ config, content }: ReturnType<typeof fired>) =>
  String(
    composeAlertEmail({
      alert: config,
      content,
      from: 'reportd@example.com',
      messageId: '<a@reportd>',
      date: new Date('2026-02-02T08:00:00Z'),
      reports: [],
    }).text,
  );

const delivery = (id: string) => ({
  id,
  event: 'alert.fired' as const,
  report: 'slow-slide',
  account: 'acme',
  at: Date.UTC(2026, 1, 2, 8),
});

describe('alerts that compare with an older run', () => {
  it('name that run, not the previous one, in the email and on Slack, Teams and webhooks', async () => {
    const only = fired([{ metric: 'presence.gross', change: '<= -5', compare_with: '4 runs' }]);
    expect(only.content.firings).toHaveLength(1);
    expect(only.content.firings[0]!.headline).toContain('against run Week 1 · 2026 (4 runs back)');

    const text = emailText(only);
    expect(text).toContain('run Week 5 · 2026 compared with Week 1 · 2026:');
    expect(text).not.toContain('compared with Week 4');

    const channel = toChannelAlert(only.content);
    const slack = createSlackSender({
      name: 'marketing',
      token: peers.slackToken,
      channel: 'C0123ABCD',
      api_url: `${peers.url}/api/`,
    });
    expect((await slack.alert(delivery('msg_s'), channel)).state).toBe('accepted');
    const posted = JSON.stringify(peers.accepted('chat.postMessage').at(-1)!.fields);
    expect(posted).toContain('run Week 5 · 2026 compared with Week 1 · 2026');
    expect(posted).not.toContain('compared with Week 4');

    const teams = createTeamsSender({ name: 'leaders', webhook_url: `${peers.url}${peers.teamsPath}` });
    expect((await teams.alert(delivery('msg_t'), channel)).state).toBe('accepted');
    const card = JSON.stringify(peers.accepted('teams').at(-1)!.fields);
    expect(card).toContain('run Week 5 · 2026 compared with Week 1 · 2026');
    expect(card).not.toContain('compared with Week 4');

    const hook = createWebhookSender({
      name: 'ops',
      url: `${peers.url}/hook`,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      include_files: false,
    });
    expect((await hook.alert(delivery('msg_w'), channel)).state).toBe('accepted');
    const body = peers.accepted('hook').at(-1)!.fields as {
      data: { previous_run: unknown; firings: { compared_with: unknown }[] };
    };
    // The run before stays what it is; the firing says what it was measured against.
    expect(body.data.previous_run).toEqual({ id: 4, label: 'Week 4 · 2026' });
    expect(body.data.firings[0]!.compared_with).toEqual({ id: 1, label: 'Week 1 · 2026' });
  });

  it('name each baseline once when rules of one alert compare with different runs', () => {
    const both = fired([
      { metric: 'presence.gross', change: '<= -5', compare_with: '4 runs' },
      { metric: 'presence.gross', change: '<= -5' },
      { metric: 'presence.gross', change: '<= -5', compare_with: '4 weeks' },
    ]);
    expect(both.content.firings).toHaveLength(3);
    expect(emailText(both)).toContain('run Week 5 · 2026 compared with Week 1 · 2026 and Week 4 · 2026:');

    const mean = fired([{ metric: 'presence.gross', change: '<= -5', baseline: 'mean_of_last_4' }]);
    expect(emailText(mean)).toContain('run Week 5 · 2026 compared with the mean of the last 4 runs:');
    expect(toChannelAlert(mean.content).firings[0]!.comparedWith).toEqual({
      id: null,
      label: 'the mean of the last 4 runs',
    });
  });
});
