import { describe, expect, it } from 'vitest';
import { catalogEndpoints, metricEndpoint } from '../../src/api/endpoints.js';
import { prepareRequest } from '../../src/api/request.js';
import { InvalidRequestError } from '../../src/errors/index.js';

describe('prepareRequest', () => {
  it('fills path parameters and encodes allowed query parameters', () => {
    const req = prepareRequest(
      metricEndpoint('scout.source-landscape'),
      { querySetId: 101 },
      {
        end_run_id: 7,
        sort: 'citations',
        dir: 'desc',
        limit: 500,
      },
    );
    expect(req.target).toBe(
      '/scout/sets/101/source-landscape?end_run_id=7&sort=citations&dir=desc&limit=500',
    );
    expect(prepareRequest(catalogEndpoints.querySets, { brandId: 3 }).target).toBe('/sets/brands/3/list');
  });

  it.each([
    [
      'a query parameter on a catalog endpoint',
      catalogEndpoints.brands,
      {},
      { end_run_id: 1 },
      /not allowed \(none allowed\)/,
    ],
    [
      'start_run_id on life-monitored-competitors',
      metricEndpoint('market.life-monitored-competitors'),
      { querySetId: 1 },
      { start_run_id: 1 },
      /start_run_id is not allowed/,
    ],
    [
      'an unknown sort',
      metricEndpoint('scout.source-landscape'),
      { querySetId: 1 },
      { sort: 'bogus' },
      /sort must be one of/,
    ],
    [
      'a non-integer run id',
      metricEndpoint('presence.gross'),
      { querySetId: 1 },
      { end_run_id: 'x' },
      /end_run_id must be an integer/,
    ],
    [
      'start after end',
      metricEndpoint('presence.gross'),
      { querySetId: 1 },
      { start_run_id: 9, end_run_id: 3 },
      /start_run_id must not be greater/,
    ],
    ['a missing query set id', metricEndpoint('presence.gross'), {}, {}, /querySetId must be an integer/],
  ])('refuses %s, naming the endpoint', (_what, endpoint, path, query, message) => {
    const attempt = () => prepareRequest(endpoint, path, query);
    expect(attempt).toThrow(InvalidRequestError);
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(endpoint.key);
  });
});
