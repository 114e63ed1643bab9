import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../clock.js';
import { createServer } from '../http-server.js';
import { companyRegistry } from './company-registry.js';
import type { PublishOptions } from './dataset.js';
import { type FaultKind, FaultPlan } from './faults.js';
import { SlidingWindow } from './rate-window.js';
import { requestHandler } from './request-handler.js';
import { BASE_PATH } from './routes.js';
import { emptyStats, resetStats, type SandboxStats } from './stats.js';

/**
 * A simulated Integration Reporting API on node:http, for tests, the demo and template work. It
 * answers the way the spec describes (JSON without wrapper; failures as HTTP 500 with
 * `{error_code, error_message}`) and decides what the spec leaves open, documented where decided:
 * - order of checks: -4 auth, then -145 rate, then -3 unknown path/method, then -3 parameters, then
 *   -132 query set, then -3 run window;
 * - the rate window is sliding, per API key, and counts admitted requests only (see rate-window.ts);
 * - with `companies` > 1 each company has its own credential, brands, sets, runs and rate window;
 *   ids never collide across companies, so another company's set is a -132 (dataset/companies.ts);
 * - an unknown brand id on /sets/brands/{brandId}/list is -3, as is an unknown path (with HTTP 500,
 *   like every other failure, so clients classify by error_code only);
 * - faults hit only first attempts (see faults.ts) and count against the rate window.
 */

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** Company 1's credential; company c > 1 gets `${apiKey}-c` / `${apiSecret}-c`. */
  apiKey?: string;
  apiSecret?: string;
  /** How many companies the sandbox serves, each with its own key (default 1). */
  companies?: number;
  rate?: { requests: number; windowMs: number };
  /** Share (0..1) of first attempts that fail with a network-style fault. */
  faults?: number;
  /**
   * How long a "stall" fault waits before answering normally; default 3000 ms. The wait runs on
   * `clock`, so with a FakeClock the test decides when the stalled answer comes.
   */
  faultStallMs?: number;
  /** Restrict faults to some kinds (default: all three). */
  faultKinds?: readonly FaultKind[];
  /** Changes which requests fault; the data set does not depend on it. */
  faultSeed?: number;
  /** Hostile strings in the data set (see DatasetOptions). */
  hostile?: boolean;
  /**
   * A quiet world: every run is an independent draw of answers from rates that never drift, so a
   * change between runs is sampling noise unless a run is published with `grossChange` (see
   * DatasetOptions.quiet).
   */
  quiet?: boolean;
  /** More query sets in every company: 301, 302, … (two runs each, shaped like set 101). */
  extraSets?: number;
  /**
   * How long every metric (payload) request waits before it is answered (ms, default 0), on
   * `clock`: a slow server, so a test can act while a sync is fetching.
   */
  latencyMs?: number;
  clock?: Clock;
}

export interface Sandbox {
  /** http://127.0.0.1:PORT/v2/integration */
  baseUrl: string;
  /** Company 1's credential. */
  apiKey: string;
  apiSecret: string;
  companies: number;
  /** The credential of company 1..companies. */
  credentials(company: number): { apiKey: string; apiSecret: string };
  stats: SandboxStats;
  resetStats(): void;
  /** Forget which requests were attempted, so their next attempt can fault again (sandbox extra). */
  resetFaults(): void;
  /**
   * Publishes the next run of a set (of whichever company owns it); `movement` trips the example
   * alert rules; `grossChange` moves the brand's presence rate by that many points from this run on
   * (the run's gross presence moves by exactly that, to within one answer; its breakdowns as sampling
   * gives) and `answers` sets the run's number of answers (see PublishOptions).
   */
  publishRun(
    querySetId: number,
    options?: PublishOptions,
  ): { id: number; display_name: string; created_at: string };
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const apiKey = options.apiKey ?? 'sandbox-key';
  const apiSecret = options.apiSecret ?? 'sandbox-secret';
  const clock = options.clock ?? systemClock;
  const rate = options.rate ?? { requests: 120, windowMs: 60_000 };
  const faults = new FaultPlan(options.faults ?? 0, options.faultKinds, options.faultSeed);
  const companies = companyRegistry({
    apiKey,
    apiSecret,
    companies: options.companies ?? 1,
    hostile: options.hostile,
    quiet: options.quiet,
    extraSets: options.extraSets,
  });
  // The first company's runs are counted before the first request (the others' on their first).
  companies.datasetOf(1).warmUp();
  const stats = emptyStats();
  const shutdown = new AbortController();
  const server = createServer(
    requestHandler({
      companies,
      window: new SlidingWindow(rate.requests, rate.windowMs, clock),
      faults,
      stallMs: options.faultStallMs ?? 3000,
      latencyMs: options.latencyMs ?? 0,
      clock,
      stats,
      shutdown: shutdown.signal,
    }),
  );
  const origin = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');

  let closing: Promise<void> | undefined;
  return {
    baseUrl: `${origin}${BASE_PATH}`,
    apiKey,
    apiSecret,
    companies: companies.companies,
    credentials: companies.credentials,
    stats,
    resetStats: () => resetStats(stats),
    resetFaults: () => faults.reset(),
    publishRun: companies.publishRun,
    close() {
      closing ??= new Promise<void>((resolve) => {
        shutdown.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Listens, and gives the `http://host:port` a client on this machine reaches the server at. */
async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const reachable = ['0.0.0.0', '::'].includes(address.address)
    ? '127.0.0.1'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;
  return `http://${reachable}:${address.port}`;
}
