import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelAlert, ChannelDelivery } from '../../src/delivery/channels/index.js';
import { createTeamsSender } from '../../src/delivery/channels/teams.js';
import { teamsConnector } from '../../src/delivery/channels/teams-answer.js';
import { TEAMS_CARD_BUDGET_BYTES } from '../../src/delivery/channels/teams-card-size.js';
import type { EmailContent } from '../../src/delivery/content.js';
import { startTeamsPeer, TEAMS_LIMIT_BYTES, type TeamsPeer } from './teams-peer.js';

/**
 * Teams as Microsoft documents it, against a local webhook answering as each connector type does
 * (teams-peer.ts): success is the legacy connector's `200` + `1` or a Workflows `202`; a 200 carrying
 * an error text is not a delivery; a card stays under the documented size limit, so an 80-set digest
 * is summarised into one card the webhook accepts.
 */
let legacy: TeamsPeer;
let workflows: TeamsPeer;

beforeAll(async () => {
  legacy = await startTeamsPeer('office365');
  workflows = await startTeamsPeer('workflows');
});
afterAll(async () => {
  await legacy?.close();
  await workflows?.close();
});

const delivery: ChannelDelivery = {
  id: 'msg_1',
  event: 'report.delivered',
  report: 'weekly',
  account: 'acme',
  at: 0,
};

const kpis = [
  { label: 'Weighted presence', value: '42.1%', delta: '+1.2 pts', arrow: '▲', good: true, bad: false },
  { label: 'Gross presence', value: '61.0%', delta: '−0.4 pts', arrow: '▼', good: false, bad: true },
  { label: 'Life KPI', value: '57.3', delta: '+2.0', arrow: '▲', good: true, bad: false },
  { label: 'Gravity+', value: '12', delta: '+3', arrow: '▲', good: true, bad: false },
];

/** A digest of `n` sets, each with its four headline KPIs, as headline.ts builds them. */
function digest(n: number): EmailContent {
  const sets = Array.from({ length: n }, (_, i) => ({
    brand: 'Northwind Coffee',
    querySet: `Northwind — Buying journeys, market ${i + 1}`,
    querySetId: 1000 + i,
    run: 'Week 47 · 2026',
    runId: 5000 + i,
    kpis,
  }));
  return {
    digest: { sets, period: 'Week 47 · 2026' },
    brand: 'Northwind Coffee',
    querySet: { id: 1000, name: sets[0]!.querySet },
    run: { id: 5000, display_name: 'Week 47 · 2026' },
    kpis,
    files: [],
  };
}

const cardText = (message: Record<string, unknown>) => JSON.stringify(message);

describe('Teams answers, per connector type', () => {
  it('legacy connector: 200 with body 1 is delivered; 200 with an error text is not', async () => {
    const sender = createTeamsSender({ name: 'leadership', webhook_url: legacy.url });
    const ok = await sender.send(delivery, digest(2));
    expect(ok.state).toBe('accepted');
    expect(legacy.posted).toHaveLength(1);

    // Too large, in the connector's words, inside a 200: the same card would fail again.
    legacy.failNext.push({
      status: 200,
      body: 'Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 413 with ContextId tcid=1',
    });
    const tooLarge = await sender.send(delivery, digest(2));
    expect(tooLarge).toMatchObject({ state: 'refused', reply: expect.stringContaining('HTTP error 413') });

    // Throttled, in the same words: worth another attempt.
    legacy.failNext.push({
      status: 200,
      body: 'Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=2',
    });
    expect((await sender.send(delivery, digest(2))).state).toBe('deferred');
    // An error text that quotes no status: not delivered, tried again.
    legacy.failNext.push({ status: 200, body: 'Webhook message delivery failed with error: unknown' });
    expect((await sender.send(delivery, digest(2))).state).toBe('deferred');
    expect(legacy.posted).toHaveLength(1);
  });

  it('Workflows: 202 is delivered; a 4xx is refused; the secret URL is never in the reply', async () => {
    const sender = createTeamsSender({ name: 'leadership', webhook_url: workflows.url });
    expect(await sender.send(delivery, digest(1))).toEqual({ state: 'accepted', reply: 'HTTP 202' });
    workflows.failNext.push({ status: 400, body: 'Bad payload' });
    const refused = await sender.send(delivery, digest(1));
    expect(refused.state).toBe('refused');
    expect(refused.reply).not.toContain('secret-part');
  });

  it('judges the connector type from the URL Microsoft gives each', () => {
    expect(teamsConnector('https://contoso.webhook.office.com/webhookb2/a@b/IncomingWebhook/c/d')).toBe(
      'office365',
    );
    expect(teamsConnector('https://outlook.office.com/webhook/a@b/IncomingWebhook/c/d')).toBe('office365');
    expect(
      teamsConnector(
        'https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke',
      ),
    ).toBe('workflows');
  });
});

describe('Teams cards stay under the documented size limit', () => {
  it('an 80-set digest is summarised into one card both connectors accept and post', async () => {
    for (const peer of [legacy, workflows]) {
      const sender = createTeamsSender({ name: 'leadership', webhook_url: peer.url });
      const before = peer.posted.length;
      const result = await sender.send(delivery, digest(80));
      expect(result.state).toBe('accepted');
      // Posted to the channel: the Workflows stand-in answers 202 even to a card it then fails to post.
      expect(peer.posted).toHaveLength(before + 1);
      const received = peer.received.at(-1)!;
      expect(received.bytes).toBeLessThanOrEqual(TEAMS_CARD_BUDGET_BYTES);
      expect(received.bytes).toBeLessThan(TEAMS_LIMIT_BYTES);
      expect(String(received.headers['content-type'])).toBe('application/json; charset=utf-8');
      const text = cardText(received.body);
      // The first sets whole, in the digest's order, then how many were left out.
      expect(text).toContain('Northwind — Buying journeys, market 1 · query set 1000');
      const shown = (text.match(/query set 1\d{3}/g) ?? []).length;
      expect(shown).toBeGreaterThan(10);
      expect(text).toContain(
        `…and ${80 - shown} more query sets: the full digest is the report's PDF and workbook.`,
      );
      expect(text).not.toContain('market 80 ·');
    }
  });

  it('a digest that fits is sent whole, with no "more" line', async () => {
    const sender = createTeamsSender({ name: 'leadership', webhook_url: workflows.url });
    expect((await sender.send(delivery, digest(5))).state).toBe('accepted');
    const text = cardText(workflows.received.at(-1)!.body);
    expect(text).toContain('market 5 ·');
    expect(text).not.toContain('more query set');
  });

  it('an alert with hundreds of firings keeps the firings that fit and says how many more', async () => {
    const alert: ChannelAlert = {
      alert: 'drop',
      account: 'acme',
      brand: 'Northwind Coffee',
      querySet: { id: 101, name: 'Northwind — Core buying journeys' },
      run: { id: 2, label: 'Week 47 · 2026' },
      previousRun: { id: 1, label: 'Week 46 · 2026' },
      firings: Array.from({ length: 400 }, (_, i) => ({
        kind: 'change',
        headline: `presence.weighted.current (competitor ${i}) changed −6.0 pts against the previous run`,
        before: '40.0%',
        after: '34.0%',
        change: '−6.0 pts',
      })),
    };
    const sender = createTeamsSender({ name: 'leadership', webhook_url: legacy.url });
    expect((await sender.alert(delivery, alert)).state).toBe('accepted');
    const received = legacy.received.at(-1)!;
    expect(received.bytes).toBeLessThanOrEqual(TEAMS_CARD_BUDGET_BYTES);
    expect(cardText(received.body)).toMatch(
      /…and \d+ more firings: the alert's email and webhook carry every one\./,
    );
  });
});
