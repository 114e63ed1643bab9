import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import type { SftpChannelConfig } from '../../../config/storage-channels.js';
import { registerSecret } from '../../../secrets.js';
import {
  type ObjectStore,
  partialName,
  StorageFault,
  type StoredObject,
  sidecarHash,
  sidecarText,
} from './object-store.js';
import { sftpWhere } from './where.js';

/**
 * An SFTP drop (OpenSSH's sftp subsystem and others) through ssh2-sftp-client: each file written to a
 * temporary name, then moved over its final name with posix-rename (atomic, and it replaces), its
 * `.sha256` written the same way. The server's host key is pinned: any other key ends the handshake.
 * One connection per attempt, opened on first use.
 */
/** A connected client, the server's key checked against the pinned one; a refusal names the host. */
async function connectSftp(config: SftpChannelConfig, where: string): Promise<SftpClient> {
  const pinned = Buffer.from(config.host_key.split(' ')[1] ?? '', 'base64');
  let keyRefused = false;
  // The library's default listeners print "Global end listener…" to stdout and errors to stderr
  // (a `check --destinations` line broken up, a log line that is not ours); every fault already
  // reaches us through the rejected promise, as one line.
  const quiet = { error: () => {}, end: () => {}, close: () => {} };
  const client = new SftpClient('reportd', quiet as never);
  const password = config.password_env ? process.env[config.password_env] : undefined;
  if (config.password_env && !password)
    throw new StorageFault('permanent', `${where}: environment variable ${config.password_env} is not set`);
  if (password) registerSecret(password);
  try {
    await client.connect({
      host: config.host,
      port: config.port,
      username: config.username,
      readyTimeout: config.timeout_seconds * 1000,
      ...(config.private_key_file ? { privateKey: await readFile(config.private_key_file) } : {}),
      ...(password ? { password } : {}),
      hostVerifier: (key: Buffer) => {
        keyRefused = !key.equals(pinned);
        return !keyRefused;
      },
    });
  } catch (error) {
    throw sftpFault(error, where, keyRefused);
  }
  return client;
}

export function sftpStore(config: SftpChannelConfig): ObjectStore {
  const where = sftpWhere(config);
  let connected: Promise<SftpClient> | undefined;
  const at = (name: string) => posix.join(config.path, name);
  const connect = () => {
    // A failed connection is not kept: the next call tries again.
    connected ??= connectSftp(config, where).catch((error: unknown) => {
      connected = undefined;
      throw error;
    });
    return connected;
  };
  const call = async <T>(what: string, run: (client: SftpClient) => Promise<T>): Promise<T> => {
    const client = await connect();
    try {
      return await run(client);
    } catch (error) {
      throw sftpFault(error, `${where}: ${what}`, false);
    }
  };
  const writeWhole = (name: string, source: string | Buffer) =>
    call(`write ${at(name)}`, async (client) => {
      const tmp = at(partialName(name));
      await client.mkdir(posix.dirname(tmp), true);
      if (typeof source === 'string') await client.fastPut(source, tmp);
      else await client.put(source, tmp);
      await client.posixRename(tmp, at(name));
    });
  return {
    where,
    stat: (name) =>
      call(`stat ${at(name)}`, async (client) => {
        if ((await client.exists(at(name))) !== '-') return undefined;
        const { size } = await client.stat(at(name));
        const sidecar =
          (await client.exists(`${at(name)}.sha256`)) === '-'
            ? String(await client.get(`${at(name)}.sha256`))
            : '';
        const sha256 = sidecarHash(sidecar);
        return { size, ...(sha256 ? { sha256 } : {}) } satisfies StoredObject;
      }),
    async put(name, file) {
      await writeWhole(name, file.path);
      await writeWhole(`${name}.sha256`, Buffer.from(sidecarText(file.sha256, name)));
    },
    remove: (name) =>
      call(`remove ${at(name)}`, async (client) => {
        for (const path of [at(name), `${at(name)}.sha256`])
          if ((await client.exists(path)) === '-') await client.delete(path);
      }),
    async close() {
      const client = connected;
      connected = undefined;
      if (client) await (await client.catch(() => undefined))?.end().catch(() => {});
    },
  };
}

/** An SSH/SFTP error as one line: a changed host key or a refused login is for good, a dropped link is not. */
function sftpFault(error: unknown, what: string, keyRefused: boolean): StorageFault {
  if (error instanceof StorageFault) return error;
  if (keyRefused)
    return new StorageFault(
      'permanent',
      `${what}: the server's host key is not the pinned host_key (refused)`,
      {
        cause: error,
      },
    );
  const message = (error as Error).message.split('\n')[0] ?? '';
  const code = (error as { code?: unknown }).code;
  if (/authentication|permission denied|no such file/i.test(message) || code === 2 || code === 3)
    return new StorageFault('permanent', `${what}: refused, ${message}`, { cause: error });
  return new StorageFault('transient', `${what}: ${message}`, { cause: error });
}
