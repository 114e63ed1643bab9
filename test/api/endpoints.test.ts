import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allEndpoints, catalogEndpoints, endpointByKey, metricEndpoints } from '../../src/api/endpoints.js';

const specPath = new URL('../../../shared/integration-api-spec.md', import.meta.url);

function specPaths(): string[] {
  const spec = readFileSync(specPath, 'utf8');
  return [...spec.matchAll(/^\| GET \| (\/\S+) \|/gm)].map((m) => m[1]!.replace('{brandId}', '{brandId}'));
}

describe('endpoint catalog', () => {
  it('lists 4 catalog and 34 metric endpoints with unique keys and paths', () => {
    expect(Object.keys(catalogEndpoints)).toHaveLength(4);
    expect(metricEndpoints).toHaveLength(34);
    expect(new Set(allEndpoints.map((e) => e.key)).size).toBe(38);
    expect(new Set(allEndpoints.map((e) => e.path)).size).toBe(38);
  });

  // Skipped, visibly, where shared/ is not beside the checkout; the count test above still holds.
  it.runIf(existsSync(specPath))('has exactly the paths of the spec', () => {
    const paths = specPaths();
    expect(paths).toHaveLength(38);
    expect(new Set(allEndpoints.map((e) => e.path))).toEqual(new Set(paths));
  });

  it('allows start_run_id everywhere but on life-monitored-competitors, and sort/dir/limit only on source-landscape', () => {
    for (const endpoint of metricEndpoints) {
      expect(Object.keys(endpoint.params)).toContain('end_run_id');
      const hasStart = 'start_run_id' in endpoint.params;
      expect(hasStart).toBe(endpoint.key !== 'market.life-monitored-competitors');
      const hasSort = 'sort' in endpoint.params;
      expect(hasSort).toBe(endpoint.key === 'scout.source-landscape');
    }
    for (const endpoint of Object.values(catalogEndpoints)) expect(endpoint.params).toEqual({});
  });

  it('finds endpoints by key', () => {
    expect(endpointByKey('presence.gross')?.path).toBe('/presence/sets/{querySetId}/gross');
    expect(endpointByKey('overview.summary')?.path).toBe('/home/sets/{querySetId}/summary');
    expect(endpointByKey('nope')).toBeUndefined();
  });
});
