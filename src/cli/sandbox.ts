import type { Command } from 'commander';
import { UsageError } from '../errors/index.js';
import { SET_ID_STRIDE } from '../sandbox/dataset/companies.js';
import { MOVEMENT_DROP_POINTS, SANDBOX_IDS } from '../sandbox/dataset.js';
import type { Sandbox, SandboxOptions } from '../sandbox/server.js';

/**
 * `reportd sandbox`: runs the simulated Integration API in the foreground, so people can point a
 * config (or curl) at it while writing templates or trying reportd without real credentials.
 */

interface SandboxFlags {
  port: string;
  host: string;
  rate: string;
  faults: string;
  stallMs: string;
  key: string;
  secret: string;
  companies: string;
  hostile?: boolean;
  publishEvery?: string;
}

/** The demo company's sets that have runs: where `--publish-every` and SIGUSR2 publish (in every company). */
const PUBLISHING_SETS = [SANDBOX_IDS.sets.main, SANDBOX_IDS.sets.secondary, SANDBOX_IDS.sets.lumen];

/** `120/60` → 120 requests per 60 seconds. */
export function parseRate(text: string): { requests: number; windowMs: number } {
  const match = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(text.trim());
  const requests = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (!match || requests < 1 || !(seconds > 0)) {
    throw new UsageError(`--rate must look like REQUESTS/SECONDS, e.g. 120/60 (got "${text}")`);
  }
  return { requests, windowMs: Math.round(seconds * 1000) };
}

function parseNumber(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be a number from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

export function register(program: Command): void {
  program
    .command('sandbox')
    .summary('run a simulated Integration Reporting API with a deterministic demo company')
    .description(
      'Runs the simulated Integration Reporting API in the foreground (a deterministic demo company: ' +
        'brands 1 and 2, query sets 101, 102, 103 and 201). Ctrl+C stops it.',
    )
    .option('--port <port>', 'TCP port; 0 picks a free one', '8787')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--rate <requests/seconds>', 'rate limit per API key (sliding window)', '120/60')
    .option('--faults <share>', 'share 0..1 of first attempts that fail (502, reset or stall)', '0')
    .option('--stall-ms <ms>', 'how long a stall fault waits before answering', '3000')
    .option('--key <key>', 'API key the sandbox accepts', 'sandbox-key')
    .option('--secret <secret>', 'API secret the sandbox accepts', 'sandbox-secret')
    .option(
      '--companies <n>',
      'serve N companies at once: company 1 is the demo company with the key and secret above, company ' +
        'c > 1 answers to KEY-c / SECRET-c (sandbox-key-7 / sandbox-secret-7) with its own brands ' +
        '(Northwind Coffee #7), query sets (101 + (c−1)×1000…), runs, numbers and rate window; another ' +
        "company's set is -132",
      '1',
    )
    .option('--hostile', 'put hostile strings (formula, script tag) into the data set')
    .option(
      '--publish-every <seconds>',
      'publish a new run of sets 101, 102 and 201 this often, each with a presence drop and a new error ' +
        'register entry (`kill -USR2 <pid>` publishes one at once)',
    )
    .action(runSandbox);
}

async function runSandbox(flags: SandboxFlags): Promise<void> {
  // Loaded here, not at the top: `reportd --help` declares every command and must not load them.
  const [{ MAX_TIMER_SECONDS }, { startSandbox }] = await Promise.all([
    import('../config/sections.js'),
    import('../sandbox/server.js'),
  ]);
  // Checked before listening: a refused flag must not leave a server running.
  const { everyMs, options } = sandboxOptions(flags, MAX_TIMER_SECONDS);
  const sandbox = await startSandbox(options);
  const out = process.stdout;
  printListening(out, sandbox);
  await publishUntilStopped(out, sandbox, everyMs);
  await sandbox.close();
  out.write(`sandbox stopped (${sandbox.stats.total} requests served)\n`);
}

/** The flags as sandbox options, each refused flag a UsageError naming it. */
function sandboxOptions(
  flags: SandboxFlags,
  maxTimerSeconds: number,
): { everyMs: number | undefined; options: SandboxOptions } {
  const everyMs =
    flags.publishEvery === undefined
      ? undefined
      : parseNumber('--publish-every', flags.publishEvery, 1, maxTimerSeconds) * 1000;
  const companies = parseNumber('--companies', flags.companies, 1, 10_000);
  if (!Number.isInteger(companies)) {
    throw new UsageError(`--companies must be a whole number (got "${flags.companies}")`);
  }
  const options: SandboxOptions = {
    companies,
    port: parseNumber('--port', flags.port, 0, 65_535),
    host: flags.host,
    rate: parseRate(flags.rate),
    faults: parseNumber('--faults', flags.faults, 0, 1),
    faultStallMs: parseNumber('--stall-ms', flags.stallMs, 0, 600_000),
    apiKey: flags.key,
    apiSecret: flags.secret,
    hostile: flags.hostile ?? false,
  };
  return { everyMs, options };
}

function printListening(out: NodeJS.WritableStream, sandbox: Sandbox): void {
  out.write(`reportd sandbox listening\n`);
  out.write(`  base URL:   ${sandbox.baseUrl}\n`);
  out.write(`  api key:    ${sandbox.apiKey}\n`);
  out.write(`  api secret: ${sandbox.apiSecret}\n`);
  const { companies } = sandbox;
  if (companies > 1) {
    const last = sandbox.credentials(companies);
    out.write(
      `  companies:  ${companies} (company c > 1: key ${sandbox.apiKey}-c, secret ${sandbox.apiSecret}-c, sets ${SANDBOX_IDS.sets.main}+(c-1)*${SET_ID_STRIDE}…; e.g. ${last.apiKey} / ${last.apiSecret})\n`,
    );
  }
  out.write(
    `  try:        curl -s -H 'X-Api-Key: ${sandbox.apiKey}' -H 'X-Api-Secret: ${sandbox.apiSecret}' ${sandbox.baseUrl}/brands/list\n`,
  );
}

/**
 * New runs that trip the example alert rules, on a timer (`everyMs`) and/or on `kill -USR2 <pid>`,
 * until SIGINT or SIGTERM. The line saying so is written once SIGUSR2 is listened to.
 */
async function publishUntilStopped(
  out: NodeJS.WritableStream,
  sandbox: Sandbox,
  everyMs: number | undefined,
): Promise<void> {
  const publish = () => {
    for (let company = 1; company <= sandbox.companies; company++) {
      for (const demoId of PUBLISHING_SETS) {
        const id = demoId + (company - 1) * SET_ID_STRIDE;
        const run = sandbox.publishRun(id, { movement: true });
        out.write(
          `published run ${run.id} (${run.display_name}) of query set ${id}: presence −${MOVEMENT_DROP_POINTS} pts, a new error register entry\n`,
        );
      }
    }
  };
  const timer = everyMs === undefined ? undefined : setInterval(publish, everyMs);
  process.on('SIGUSR2', publish);
  out.write(`Press Ctrl+C to stop; kill -USR2 ${process.pid} publishes new runs now.\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.off('SIGUSR2', publish);
      if (timer) clearInterval(timer);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
