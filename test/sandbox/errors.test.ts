import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { SANDBOX_IDS } from '../../src/sandbox/dataset.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { get } from './http.js';

const runs101 = SANDBOX_IDS.runs[101]!;
const runs201 = SANDBOX_IDS.runs[201]!;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ rate: { requests: 10_000, windowMs: 60_000 } });
});
afterAll(() => sandbox.close());

async function expectFailure(
  target: string,
  code: number,
  message: RegExp,
  headers?: Record<string, string>,
) {
  const { status, body } = await get(sandbox, target, headers);
  expect(status, target).toBe(500);
  expect(body, target).toEqual({ error_code: code, error_message: expect.stringMatching(message) });
}

describe('sandbox authentication (-4)', () => {
  it('refuses a request without headers, with a wrong secret or with a wrong key', async () => {
    await expectFailure('/brands/list', -4, /^Not authorized$/, {});
    await expectFailure('/brands/list', -4, /^Not authorized$/, { 'X-Api-Key': sandbox.apiKey });
    await expectFailure('/brands/list', -4, /^Not authorized$/, {
      'X-Api-Key': sandbox.apiKey,
      'X-Api-Secret': 'rotated-away',
    });
    await expectFailure('/presence/sets/101/gross', -4, /^Not authorized$/, {
      'X-Api-Key': 'someone-else',
      'X-Api-Secret': sandbox.apiSecret,
    });
  });

  it('accepts the credentials it was started with', async () => {
    const custom = await startSandbox({ apiKey: 'k-123', apiSecret: 's-456' });
    try {
      expect((await get(custom, '/brands/list')).status).toBe(200);
      const wrong = await get(custom, '/brands/list', {
        'X-Api-Key': 'sandbox-key',
        'X-Api-Secret': 'sandbox-secret',
      });
      expect(wrong.body).toMatchObject({ error_code: -4 });
    } finally {
      await custom.close();
    }
  });
});

describe('sandbox query set scope (-132)', () => {
  it.each([
    ['another company', '/sets/999/details'],
    ['another company, metric', '/presence/sets/999/gross'],
    ['an unknown set', `/sets/${SANDBOX_IDS.unknownSet}/runs`],
    ['an unknown set, metric', `/life/sets/${SANDBOX_IDS.unknownSet}/kpi`],
  ])('answers -132 for %s', async (_, target) => {
    await expectFailure(target, -132, /^Query set not found$/);
  });
});

describe('sandbox bad requests (-3)', () => {
  it.each([
    ['a query parameter on a catalog endpoint', '/brands/list?end_run_id=1', /takes no query parameters/],
    ['a query parameter on a set catalog endpoint', '/sets/101/runs?limit=5', /takes no query parameters/],
    ['an unknown query parameter', '/presence/sets/101/gross?page=2', /unknown query parameter page/],
    ['a non-integer set id', '/presence/sets/abc/gross', /querySetId must be an integer/],
    ['a negative set id', '/sets/-101/runs', /querySetId must be an integer/],
    ['a non-integer brand id', '/sets/brands/one/list', /brandId must be an integer/],
    ['an unknown brand', `/sets/brands/${SANDBOX_IDS.unknownBrand}/list`, /unknown brand 7/],
    ['a non-integer run id', '/presence/sets/101/gross?end_run_id=latest', /end_run_id must be an integer/],
    ['a zero run id', '/presence/sets/101/gross?end_run_id=0', /end_run_id must be an integer >= 1/],
    [
      'a repeated run id',
      `/presence/sets/101/gross?end_run_id=${runs101[1]}&end_run_id=${runs101[2]}`,
      /more than once/,
    ],
    [
      'start_run_id on life-monitored-competitors',
      `/market/sets/101/life-monitored-competitors?start_run_id=${runs101[0]}`,
      /unknown query parameter start_run_id/,
    ],
    ['a bad sort', '/scout/sets/101/source-landscape?sort=popularity', /sort must be one of name, citations/],
    ['a bad dir', '/scout/sets/101/source-landscape?dir=up', /dir must be one of asc, desc/],
    ['a zero limit', '/scout/sets/101/source-landscape?limit=0', /limit must be an integer >= 1/],
    ['a negative limit', '/scout/sets/101/source-landscape?limit=-5', /limit must be an integer/],
    [
      'a run of another set',
      `/presence/sets/101/gross?end_run_id=${runs201[0]}`,
      /not a published run of query set 101/,
    ],
    [
      'an unknown run',
      '/presence/sets/101/gross?start_run_id=99999',
      /start_run_id 99999 is not a published run/,
    ],
    [
      'start_run_id after end_run_id',
      `/presence/sets/101/gross?start_run_id=${runs101[5]}&end_run_id=${runs101[2]}`,
      /start_run_id \d+ is after end_run_id \d+/,
    ],
    [
      'a metric of a set without published runs',
      '/presence/sets/103/gross',
      /query set 103 has no published run/,
    ],
    ['an unknown path', '/presence/sets/101/grosss', /no endpoint at/],
    ['a path outside the base', '/../v1/brands/list', /no endpoint at/],
  ])('answers -3 for %s', async (_, target, message) => {
    await expectFailure(target, -3, /^Bad request: /);
    await expectFailure(target, -3, message);
  });

  it('refuses methods other than GET', async () => {
    const response = await fetch(`${sandbox.baseUrl}/brands/list`, {
      method: 'POST',
      headers: { 'X-Api-Key': sandbox.apiKey, 'X-Api-Secret': sandbox.apiSecret },
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error_code: -3 });
  });

  it('counts requests by endpoint and by error code', async () => {
    sandbox.resetStats();
    await get(sandbox, '/presence/sets/101/gross');
    await get(sandbox, '/presence/sets/999/gross');
    await get(sandbox, '/presence/sets/101/gross?x=1');
    await get(sandbox, '/brands/list', {});
    expect(sandbox.stats).toEqual({
      total: 4,
      byEndpoint: { 'presence.gross': 3 },
      byErrorCode: { '-132': 1, '-3': 1, '-4': 1 },
      faults: 0,
      // Each payload request as it came, counted before its query was checked: refetch counts.
      byPayload: {
        '/presence/sets/101/gross': 1,
        '/presence/sets/999/gross': 1,
        '/presence/sets/101/gross?x=1': 1,
      },
    });
  });
});

describe('sandbox rate limit (-145)', () => {
  it('refuses requests beyond N per sliding window and admits again once the oldest leave it', async () => {
    const clock = new FakeClock();
    const limited = await startSandbox({ rate: { requests: 5, windowMs: 1000 }, clock });
    try {
      for (let i = 0; i < 5; i++) {
        expect((await get(limited, '/brands/list')).status, `request ${i + 1}`).toBe(200);
        await clock.advance(100);
      }
      // t = 500: five requests at 0..400 are inside the window.
      expect((await get(limited, '/brands/list')).body).toEqual({
        error_code: -145,
        error_message: 'Rate limit exceeded',
      });
      // Refused requests are not counted: at t = 1001 only the first request has left the window.
      await clock.advance(501);
      expect((await get(limited, '/brands/list')).status).toBe(200);
      expect((await get(limited, '/brands/list')).body).toMatchObject({ error_code: -145 });
      expect(limited.stats.byErrorCode).toEqual({ '-145': 2 });
    } finally {
      await limited.close();
    }
  });

  it('checks credentials before the rate limit, so a wrong secret never uses the budget', async () => {
    const clock = new FakeClock();
    const limited = await startSandbox({ rate: { requests: 2, windowMs: 60_000 }, clock });
    try {
      for (let i = 0; i < 5; i++) {
        expect((await get(limited, '/brands/list', { 'X-Api-Key': 'sandbox-key' })).body).toMatchObject({
          error_code: -4,
        });
      }
      expect((await get(limited, '/brands/list')).status).toBe(200);
      expect((await get(limited, '/brands/list')).status).toBe(200);
      expect((await get(limited, '/brands/list')).body).toMatchObject({ error_code: -145 });
    } finally {
      await limited.close();
    }
  });
});
