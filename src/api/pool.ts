import type { Dispatcher, Pool as UndiciPool } from 'undici';
import request from 'undici/lib/api/api-request.js';
import Pool from 'undici/lib/dispatcher/pool.js';

/**
 * The API client's connection pool. undici's index loads every part of the package (fetch, cookies,
 * WebSocket, caches, mock agents, Node's own bundled undici): a fifth of a second of CPU in every
 * `reportd sync` and daemon, which need one pool and its `request`. The same two are taken here
 * directly; the index would only have assigned that `request` to the pool's prototype.
 */
export interface ApiPool {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData<unknown>>;
  close(): Promise<void>;
}

export function apiPool(origin: string, options: UndiciPool.Options): ApiPool {
  const pool = new Pool(origin, options);
  return {
    request: (requestOptions) => request.call(pool, requestOptions),
    close: () => pool.close(),
  };
}
