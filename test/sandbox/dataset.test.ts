import { describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { createDataset, HOSTILE, SANDBOX_IDS } from '../../src/sandbox/dataset.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { get, pathOf } from './http.js';

async function everyPayload(sandbox: Sandbox, setId: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const target of [
    '/brands/list',
    '/sets/brands/1/list',
    `/sets/${setId}/details`,
    `/sets/${setId}/runs`,
  ]) {
    out[target] = (await get(sandbox, target)).body;
  }
  for (const endpoint of metricEndpoints) {
    const q = endpoint.name === 'source-landscape' ? 'limit=100' : '';
    out[endpoint.key] = (await get(sandbox, pathOf(endpoint.path, { querySetId: setId }, q))).body;
  }
  return out;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('sandbox data set', () => {
  it('is deterministic: two sandboxes give identical payloads', async () => {
    const [a, b] = await Promise.all([startSandbox(), startSandbox()]);
    try {
      expect(await everyPayload(a, 101)).toEqual(await everyPayload(b, 101));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('keeps hostile strings out by default and puts them in realistic places with hostile: true', async () => {
    const clean = await startSandbox();
    const hostile = await startSandbox({ hostile: true });
    try {
      const cleanText = JSON.stringify(await everyPayload(clean, 101));
      const hostileText = JSON.stringify(await everyPayload(hostile, 101));
      for (const value of Object.values(HOSTILE)) {
        expect(cleanText).not.toContain(JSON.stringify(value).slice(1, -1));
        expect(hostileText).toContain(JSON.stringify(value).slice(1, -1));
      }
      expect(cleanText).not.toMatch(/<script|HYPERLINK/);
      const context = (await get(hostile, '/home/sets/101/competitive-context')).body as {
        shares: Array<{ name: string }>;
      };
      expect(context.shares.map((s) => s.name)).toContain('=HYPERLINK("http://evil.example","x")');
    } finally {
      await Promise.all([clean.close(), hostile.close()]);
    }
  });

  it('exports the ids it serves', () => {
    expect(SANDBOX_IDS.runs[101]).toHaveLength(10);
    expect(SANDBOX_IDS.runs[102]).toHaveLength(3);
    expect(SANDBOX_IDS.runs[103]).toHaveLength(0);
    expect(SANDBOX_IDS.runs[201]).toHaveLength(4);
    const all = Object.values(SANDBOX_IDS.runs).flat();
    expect(new Set(all).size).toBe(all.length);
  });

  it('labels runs by ISO week and writes created_at with the publisher offset, across the DST change', () => {
    const ds = createDataset();
    const set = ds.set(101)!;
    expect(set.runs.map((r) => r.display_name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Week ${28 + i} · 2026`),
    );
    expect(set.runs[9]!.created_at).toMatch(/^2026-09-14T\d{2}:\d{2}:\d{2}\+02:00$/);
    expect(ds.set(201)!.runs[0]!.created_at).toMatch(/\+00:00$/);
    let last = { created_at: '', display_name: '' };
    for (let i = 0; i < 6; i++) last = ds.publishRun(101);
    expect(last.display_name).toBe('Week 43 · 2026');
    expect(last.created_at).toMatch(/^2026-10-26T\d{2}:\d{2}:\d{2}\+01:00$/);
  });

  it('mixes scales the way the metrics table documents: percents 0..100, fractions summing to 1', async () => {
    const sandbox = await startSandbox();
    try {
      for (const setId of [101, 201]) {
        const p = await everyPayload(sandbox, setId);
        const gross = p['presence.gross'] as { current: number; history: number[] };
        expect(gross.current).toBeGreaterThan(1);
        expect(Math.max(...gross.history)).toBeLessThanOrEqual(100);

        const context = p['overview.competitive-context'] as {
          fairShare: number;
          shares: Array<{ name: string; share: number; isBrand: boolean }>;
        };
        expect(sum(context.shares.map((s) => s.share))).toBeCloseTo(1, 6);
        expect(context.fairShare).toBeLessThan(1);
        expect(context.shares.filter((s) => s.isBrand)).toHaveLength(1);
        expect(context.shares.at(-1)?.name).toMatch(/^Other competitors \(\d+\)$/);

        const mix = p['life.stance-mix'] as Record<string, number>;
        const { engineCount: _e, prev: _p, ...stance } = mix;
        expect(sum(Object.values(stance))).toBeCloseTo(1, 6);
        const recommended = p['life.recommended-share'] as { current: number };
        expect(recommended.current).toBeCloseTo((stance.recommended ?? 0) * 100, 6);

        const dist = p['gravity.source-distribution'] as Record<string, number>;
        expect(sum(Object.values(dist))).toBeCloseTo(100, 6);

        const positions = p['presence.position-distribution'] as Record<string, number>;
        expect(sum([positions.p1!, positions.p2!, positions.p3!, positions.p4plus!])).toBeCloseTo(1, 6);
      }
    } finally {
      await sandbox.close();
    }
  });

  it('describes engines, intents, errors, citations and sources the way reports need them', async () => {
    const sandbox = await startSandbox();
    try {
      const p = await everyPayload(sandbox, 101);
      const engines = (p['presence.by-engine'] as { engines: Array<{ color: string; image: string }> })
        .engines;
      expect(engines.length).toBeGreaterThanOrEqual(5);
      for (const e of engines) {
        expect(e.color).toMatch(/^#[0-9A-F]{6}$/);
        expect(e.image).toMatch(/^http:\/\/cdn\.sandbox-assets\.example\//);
      }
      const intents = (p['presence.by-intent'] as { intents: Array<{ stage: string; icv: number }> }).intents;
      expect(intents.length).toBeGreaterThanOrEqual(4);
      expect(new Set(intents.map((i) => i.stage)).size).toBeGreaterThanOrEqual(3);
      expect(intents.every((i) => Number.isInteger(i.icv))).toBe(true);

      const register = p['gravity.error-register'] as { gravityErrors: Array<{ note: string | null }> };
      expect(register.gravityErrors.some((e) => e.note === null)).toBe(true);
      expect(register.gravityErrors.some((e) => typeof e.note === 'string')).toBe(true);

      const occurrences = p['scout.citation-occurrences'] as { categories: Array<{ key: string }> };
      const keys = occurrences.categories.map((c) => c.key);
      expect(keys[0]).toBe('brand');
      expect(keys.slice(1).every((k) => /^comp_\d+$/.test(k))).toBe(true);

      const landscape = p['scout.source-landscape'] as {
        totalCount: number;
        sourcesDetail: Array<{ control: string; sourceType: string }>;
      };
      expect(landscape.totalCount).toBeGreaterThanOrEqual(25);
      expect(new Set(landscape.sourcesDetail.map((s) => s.control))).toEqual(
        new Set(['owned', 'partner', 'external']),
      );
      expect(new Set(landscape.sourcesDetail.map((s) => s.sourceType)).size).toBeGreaterThanOrEqual(5);
    } finally {
      await sandbox.close();
    }
  });
});
