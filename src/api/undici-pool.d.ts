/**
 * undici's connection pool and its `request` on their own (the package's index assigns the same
 * `request` to every dispatcher's prototype): see pool.ts for why only these two are imported.
 */
declare module 'undici/lib/dispatcher/pool.js' {
  const Pool: typeof import('undici').Pool;
  export default Pool;
}

declare module 'undici/lib/api/api-request.js' {
  const request: import('undici').Dispatcher['request'];
  export default request;
}
