import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server for tests: every accepted message is parsed back with mailparser. Recipients at
 * `@bounce.test` are refused with 550 (a permanent failure), and `failNext` answers 451 to the next
 * DATA commands (a transient one), with `failText` as the reply's text (a server may echo anything).
 */
export interface TestSmtp {
  port: number;
  url: string;
  messages: ParsedMail[];
  /** The envelope recipients (RCPT TO accepted) of each stored message, in the same order. */
  envelopes: string[][];
  /** The size on the wire (bytes of DATA) of each stored message, in the same order. */
  sizes: number[];
  failNext: number;
  /** Resolves once `count` messages have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

export async function startSmtp(
  options: {
    port?: number;
    user?: string;
    password?: string;
    failText?: string;
    onData?: () => Promise<void>;
    /** Runs after the message is stored and before the server replies 250 (a server slow to answer DATA). */
    afterStore?: () => Promise<void>;
    /** A reply for RCPT TO of `address` (e.g. 450 greylisting), or undefined to accept it. */
    rcptReply?: (address: string) => { code: number; text: string } | undefined;
    /**
     * Runs before RCPT TO is answered: a client held here is mid-exchange, with nothing stored yet
     * (a kill now must not leave a message behind). Resolve to answer as usual.
     */
    beforeRcpt?: (address: string) => Promise<void>;
    /**
     * Runs when a client connects, before the server greets it (a tarpit holds the greeting here): a
     * client held here has sent nothing yet. Resolve to greet as usual.
     */
    beforeGreeting?: () => Promise<void>;
  } = {},
): Promise<TestSmtp> {
  const messages: ParsedMail[] = [];
  const envelopes: string[][] = [];
  const sizes: number[] = [];
  const waiters: (() => void)[] = [];
  const state = { failNext: 0 };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.user,
    allowInsecureAuth: true,
    logger: false,
    onConnect(_session, callback) {
      if (!options.beforeGreeting) return callback();
      options.beforeGreeting().then(() => callback(), callback);
    },
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) {
        return callback(null, { user: auth.username });
      }
      return callback(new Error('Invalid username or password'));
    },
    async onRcptTo(address, _session, callback) {
      if (options.beforeRcpt) await options.beforeRcpt(address.address);
      const reply = options.rcptReply?.(address.address);
      if (reply) {
        const error = new Error(reply.text) as Error & { responseCode: number };
        error.responseCode = reply.code;
        return callback(error);
      }
      if (address.address.endsWith('@bounce.test')) {
        const error = new Error(`No such user ${address.address}`) as Error & { responseCode: number };
        error.responseCode = 550;
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      simpleParser(stream)
        .then(async (mail) => {
          if (options.onData) await options.onData();
          if (state.failNext > 0) {
            state.failNext--;
            const error = new Error(options.failText ?? 'Try again later') as Error & {
              responseCode: number;
            };
            error.responseCode = 451;
            return callback(error);
          }
          messages.push(mail);
          envelopes.push(session.envelope.rcptTo.map((a) => a.address));
          sizes.push(size);
          for (const wake of waiters.splice(0)) wake();
          if (options.afterStore) await options.afterStore();
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    envelopes,
    sizes,
    get failNext() {
      return state.failNext;
    },
    set failNext(n: number) {
      state.failNext = n;
    },
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${messages.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A temp folder removed after the test. */
export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'reportd-delivery-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A stand-in PDF file of `bytes` size (the outbox tests are about delivery, not rendering). */
export function fakeFile(dir: string, name: string, bytes = 2048): string {
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(Math.max(0, bytes - 9), 65)]));
  return path;
}
