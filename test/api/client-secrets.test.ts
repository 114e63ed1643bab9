import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/api/budget.js';
import { ApiClient } from '../../src/api/client.js';
import { catalogEndpoints, metricEndpoint } from '../../src/api/endpoints.js';
import { createLogger } from '../../src/log.js';
import { startScriptedServer } from './scripted-server.js';

const SECRET = 'sk-live-7f3a9c1e5b2d';
const gross = metricEndpoint('presence.gross');

let server: Awaited<ReturnType<typeof startScriptedServer>>;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

function client(baseUrl: string, lines: string[] = []) {
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  return new ApiClient({
    baseUrl,
    apiKey: 'key-123',
    apiSecret: SECRET,
    budget: new RateBudget({ key: 'key-123', requests: 1_000, windowMs: 60_000 }),
    timeoutMs: 500,
    maxAttempts: 2,
    backoff: { baseMs: 1, capMs: 5 },
    logger,
  });
}

describe('ApiClient credentials', () => {
  it('sends the key, the secret and Accept on every request, whether or not the base URL ends in /', async () => {
    server.script('/brands/list', { status: 200, json: [{ id: 1, name: 'Northwind Coffee' }] });
    for (const baseUrl of [server.baseUrl, `${server.baseUrl}/`]) {
      const c = client(baseUrl);
      await expect(c.get(catalogEndpoints.brands, {})).resolves.toEqual([
        { id: 1, name: 'Northwind Coffee' },
      ]);
      await c.close();
    }
    const requests = server.requestsTo('/brands/list');
    expect(requests).toHaveLength(2);
    for (const r of requests) {
      expect(r.path).toBe('/v2/integration/brands/list');
      expect(r.headers).toMatchObject({
        'x-api-key': 'key-123',
        'x-api-secret': SECRET,
        accept: 'application/json',
      });
    }
  });

  it('never puts the secret in an error, its cause, or a log line', async () => {
    // The server echoing the secret back is the worst case: it must still not surface.
    server.script('/presence/sets/1/gross', {
      status: 500,
      json: { error_code: -4, error_message: `Not authorized: ${SECRET}` },
    });
    server.script('/presence/sets/2/gross', { status: 500, json: { error_code: -3, error_message: 'Bad' } });
    server.script('/presence/sets/3/gross', 'destroy');
    server.script('/presence/sets/4/gross', { status: 502, body: `<html>${SECRET}</html>` });
    server.script('/presence/sets/5/gross', { status: 200, json: { current: SECRET } });
    server.script('/presence/sets/6/gross', 'stall');
    const lines: string[] = [];
    const c = client(server.baseUrl, lines);
    const errors: unknown[] = [];
    for (const querySetId of [1, 2, 3, 4, 5, 6]) {
      errors.push(await c.get(gross, { querySetId }).catch((e) => e));
    }
    await c.close();
    expect(errors.every((e) => e instanceof Error)).toBe(true);
    for (const error of errors) {
      // The raw payload of a validation error is the server's data, stored as sent; everything else
      // the error says must be clean.
      const { payload: _payload, ...rest } = error as Error & { payload?: unknown };
      expect(JSON.stringify(rest)).not.toContain(SECRET);
      expect(String(error)).not.toContain(SECRET);
      expect(inspect(error, { depth: 5 }).replace(inspect(_payload), '')).not.toContain(SECRET);
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(SECRET);
    expect(inspect(c, { depth: 5 })).not.toContain(SECRET);
    expect(JSON.stringify(c)).not.toContain(SECRET);
  });
});
