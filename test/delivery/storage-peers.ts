import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createConnection, createServer, type Server } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/**
 * The storage peers the tests start: s3rver (an S3 server that checks SigV4 and pre-signed links'
 * expiry) and OpenSSH's sshd with its sftp subsystem on a local port, with host keys and a user key
 * generated into a temporary folder. Both are real servers reached over TCP.
 */

/** s3rver's own credentials: what the SDK's default chain finds in the environment in these tests. */
export const S3_KEY = { id: 'S3RVER', secret: 'S3RVER' };

export interface TestS3 {
  endpoint: string;
  dir: string;
  close(): Promise<void>;
}

export async function startS3(dir: string, buckets: string[]): Promise<TestS3> {
  mkdirSync(dir, { recursive: true });
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: dir,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const address = (await server.run()) as AddressInfo;
  return { endpoint: `http://127.0.0.1:${address.port}`, dir, close: () => server.close() };
}

/**
 * The multipart uploads s3rver holds unfinished in `bucket` (their ids). s3rver answers
 * ListMultipartUploads with NotImplemented, so the tests read its folder: each upload in progress is
 * a folder of parts there until it is completed.
 */
export function unfinishedUploads(s3: TestS3, bucket: string): string[] {
  const uploads = join(s3.dir, bucket, '._S3rver_uploads');
  return existsSync(uploads) ? readdirSync(uploads) : [];
}

export interface TestSshd {
  port: number;
  user: string;
  /** The server's ed25519 public host key as OpenSSH prints it ("ssh-ed25519 AAAA…"). */
  hostKey: string;
  /** A host key the server does not have (a "changed" key to pin). */
  otherHostKey: string;
  keyFile: string;
  /** The folder the SFTP paths are written below (absolute, the user may write it). */
  root: string;
  close(): Promise<void>;
}

/** A free local port (bound and released; sshd binds it right after). */
async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** sshd, or undefined with the reason when this machine has none (the tests then say so and skip). */
export function sshdPath(): string | undefined {
  for (const path of ['/usr/sbin/sshd', '/usr/local/sbin/sshd']) {
    try {
      readFileSync(path);
      return path;
    } catch {}
  }
  return undefined;
}

export async function startSshd(dir: string): Promise<TestSshd> {
  const sshd = sshdPath();
  if (!sshd)
    throw new Error('sshd not installed (apt-get install -y openssh-server; scripts/install.sh does)');
  mkdirSync(dir, { recursive: true });
  const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file]);
  keygen(join(dir, 'host_ed25519'));
  keygen(join(dir, 'other_host_ed25519'));
  keygen(join(dir, 'user_ed25519'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'user_ed25519.pub')));
  const root = join(dir, 'drop');
  mkdirSync(root);
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  // Its own config: this port, these keys, key logins for the running user only; no PAM, no strict
  // modes (the temporary folder is not the user's home).
  writeFileSync(
    config,
    `Port ${port}
ListenAddress 127.0.0.1
HostKey ${join(dir, 'host_ed25519')}
PidFile ${join(dir, 'sshd.pid')}
AuthorizedKeysFile ${join(dir, 'authorized_keys')}
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
AllowUsers ${userInfo().username}
Subsystem sftp internal-sftp
`,
  );
  mkdirSync('/run/sshd', { recursive: true });
  const child: ChildProcess = spawn(sshd, ['-D', '-e', '-f', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  await waitForPort(port, () => log);
  const publicKey = (name: string) => readFileSync(join(dir, name), 'utf8').split(' ').slice(0, 2).join(' ');
  return {
    port,
    user: userInfo().username,
    hostKey: publicKey('host_ed25519.pub'),
    otherHostKey: publicKey('other_host_ed25519.pub'),
    keyFile: join(dir, 'user_ed25519'),
    root,
    async close() {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    },
  };
}

async function waitForPort(port: number, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = createConnection(port);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sshd did not listen on ${port}: ${log()}`);
}
