import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeamsSender } from '../../src/delivery/channels/teams.js';
import type { ChannelAlert } from '../../src/delivery/channels/types.js';
import { type ChannelPeers, startChannelPeers } from './channel-peers.js';

/**
 * The Teams alert card against the stand-in Teams webhook over HTTP: an Adaptive Card 1.4 naming what
 * fired, before → after with the change, and the quoted claim, with API link syntax escaped.
 */

let peers: ChannelPeers;
beforeAll(async () => {
  peers = await startChannelPeers();
});
afterAll(async () => {
  await peers?.close();
});

const alert: ChannelAlert = {
  alert: 'visibility-drop',
  account: 'acme',
  brand: 'Evil [click](https://evil.example)',
  querySet: { id: 101, name: 'Core buying journeys' },
  run: { id: 2, label: 'Week 48 · 2026' },
  previousRun: { id: 1, label: 'Week 47 · 2026' },
  firings: [
    {
      kind: 'change',
      headline: 'Gross presence changed −9.0 pts against the previous run',
      metricName: 'Gross presence',
      metric: 'presence.gross.current',
      before: '51.0%',
      after: '42.0%',
      change: '−9.0 pts',
    },
    {
      kind: 'new_error',
      headline: 'New error: shop closures',
      errors: [
        { id: 'e1', title: 'shop closures', correct: 'open', claims: ['They close.'], engines: ['gpt'] },
      ],
    },
  ],
};

describe('Teams alert card', () => {
  it('posts an Adaptive Card 1.4 with what fired, before → after and the quoted claim', async () => {
    const sender = createTeamsSender({ name: 'leaders', webhook_url: `${peers.url}${peers.teamsPath}` });
    const result = await sender.alert(
      { id: 'msg_1', event: 'alert.fired', report: 'visibility-drop', account: 'acme', at: Date.now() },
      alert,
    );
    expect(result.state).toBe('accepted');
    const [posted] = peers.accepted('teams');
    const card = (
      posted!.fields as { attachments: { content: { version: string; body: { text?: string }[] } }[] }
    ).attachments[0]!.content;
    expect(card.version).toBe('1.4');
    const texts = card.body.map((b) => b.text ?? '');
    expect(texts[0]).toBe('Alert: visibility-drop (Evil \\[click\\](https://evil.example))');
    expect(texts).toContain('51.0% → 42.0% (−9.0 pts)');
    expect(texts).toContain('Claim: "They close."');
  });

  it('answers deferred when the Teams webhook is down', async () => {
    peers.failNext.set('teams', [{ status: 502, body: 'bad gateway' }]);
    const sender = createTeamsSender({ name: 'leaders', webhook_url: `${peers.url}${peers.teamsPath}` });
    const result = await sender.alert(
      { id: 'msg_2', event: 'alert.fired', report: 'visibility-drop', account: 'acme', at: Date.now() },
      alert,
    );
    expect(result.state).toBe('deferred');
  });
});
