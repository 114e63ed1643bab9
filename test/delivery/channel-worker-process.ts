import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import { type ChannelPeers, startChannelPeers } from './channel-peers.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/channel-worker.ts', import.meta.url));
/**
 * V8's code cache for the workers' modules (NODE_COMPILE_CACHE, read by Node.js 22.1 and later, ignored
 * before), shared by every worker of a run: a test that kills and starts dozens of them (slack-kill-steps
 * starts 45) no longer compiles the bundle and its packages again in each, about a fifth of a worker's
 * start. V8 keys each entry by the file's content, so an edited source is compiled afresh.
 */
const COMPILE_CACHE = fileURLToPath(new URL('../../.test-fixtures/compile-cache', import.meta.url));

export interface ChannelWorker {
  child: ChildProcess;
  /** What it printed so far (one JSON outcome per line, then `done`). */
  output(): string;
  /** Resolves with everything it printed once it exits. */
  exit: Promise<string>;
  /** Lets a worker started with `held` begin (it has loaded its modules meanwhile). */
  go(): void;
}

/**
 * One outbox worker over email, Slack, Teams and a webhook in a process of its own
 * (fixtures/channel-worker.ts, whose header lists the modes and environment variables), so a test
 * can kill, freeze or race it against another.
 */
export function channelWorker(options: {
  /** The SQLite file or PostgreSQL URL. */
  store: string;
  smtp: TestSmtp;
  peers: ChannelPeers;
  webhookSecret: string;
  mode: string;
  leaseMs: number;
  dir: string;
  env?: Record<string, string>;
  /** Started but waiting for `go()`: the next worker of a test that kills one after another. */
  held?: boolean;
}): ChannelWorker {
  const { peers } = options;
  const child = spawn(
    process.execPath,
    [
      ...bundledFixture(FIXTURE),
      options.store,
      options.smtp.url,
      peers.url,
      peers.slackToken,
      peers.teamsPath,
      options.webhookSecret,
      options.mode,
      String(options.leaseMs),
      options.dir,
    ],
    {
      stdio: [options.held ? 'pipe' : 'ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        NODE_COMPILE_CACHE: COMPILE_CACHE,
        ...options.env,
        ...(options.held ? { HOLD: '1' } : {}),
      },
    },
  );
  let text = '';
  child.stdout!.on('data', (chunk) => {
    text += chunk;
  });
  const exit = new Promise<string>((resolve) => child.on('exit', () => resolve(text)));
  return { child, output: () => text, exit, go: () => child.stdin?.end('go\n') };
}

/**
 * The peers a channel worker talks to, fresh for each test of the file that calls this at its top
 * level: a temp folder with the SQLite store's path, a real SMTP server and the channel stand-ins.
 */
export function channelRig(): {
  tmp: ReturnType<typeof tempDir>;
  smtp: TestSmtp;
  peers: ChannelPeers;
  storePath: string;
} {
  const rig = {} as ReturnType<typeof channelRig>;
  beforeEach(async () => {
    rig.tmp = tempDir();
    rig.smtp = await startSmtp();
    rig.peers = await startChannelPeers();
    rig.storePath = join(rig.tmp.dir, 'reportd.sqlite');
  });
  afterEach(async () => {
    await rig.smtp.close();
    await rig.peers.close();
    rig.tmp.cleanup();
  });
  return rig;
}
