import type { Sandbox } from '../../src/sandbox/server.js';

/** A raw GET against the sandbox with its credentials (or the given headers), parsed when JSON. */
export async function get(
  sandbox: Pick<Sandbox, 'baseUrl' | 'apiKey' | 'apiSecret'>,
  target: string,
  headers: Record<string, string> = { 'X-Api-Key': sandbox.apiKey, 'X-Api-Secret': sandbox.apiSecret },
): Promise<{ status: number; body: unknown; text: string; contentType: string }> {
  const response = await fetch(sandbox.baseUrl + target, { headers });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text, contentType };
}

/** The path of an endpoint for a set or brand, with a query string. */
export function pathOf(template: string, ids: { querySetId?: number; brandId?: number }, query = ''): string {
  return (
    template
      .replace('{querySetId}', String(ids.querySetId ?? ''))
      .replace('{brandId}', String(ids.brandId ?? '')) + (query ? `?${query}` : '')
  );
}
