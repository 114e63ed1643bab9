import { StoreFaultError } from '../errors/index.js';

/**
 * PostgreSQL failures of the connection rather than of the statement: the server restarting
 * (57P01 admin shutdown, 57P02 crash shutdown, 57P03 "starting up"), a connection cut (class 08,
 * "Connection terminated unexpectedly", a reset), refused while it is down, or the pool's connect
 * timeout. Nothing the failed statement did was committed, and the server may answer again in
 * seconds, so work can wait for it and go on from what the store holds. SQLite's own troubles (a
 * full disk, a lock held too long) are store faults instead (store-fault.ts): they do not pass.
 */
const SQLSTATE = /^(57P0[123]|08\d{3})$/;
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
const MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /Client has encountered a connection error and is not queryable/,
];

/** Errors the database driver threw: only these can mean the store is unreachable. */
const fromDriver = new WeakSet<object>();

/**
 * Marks an error as the database driver's (postgres-store.ts does, for every call it makes). A socket
 * code alone says nothing of whose socket it was: the API refusing a connection (`ECONNREFUSED` in a
 * fetch's cause) is the API's trouble, and waiting for the store would not end it.
 */
export function fromStoreDriver(error: unknown): unknown {
  if (typeof error === 'object' && error !== null) fromDriver.add(error);
  return error;
}

export function isStoreUnreachable(error: unknown): boolean {
  // The pg driver sometimes wraps the socket's error; a few levels of `cause` are enough.
  let driver = false;
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    // Given up on already (store-outage.ts): a fault to report now, not an outage to wait out.
    if (e instanceof StoreFaultError) return false;
    driver ||= fromDriver.has(e);
    if (!driver) continue;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (SQLSTATE.test(code) || NETWORK.has(code))) return true;
    if (MESSAGES.some((pattern) => pattern.test(e.message))) return true;
  }
  return false;
}
