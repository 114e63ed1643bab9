import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { recordDeliveredFiles } from '../../src/store/delivered-files.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { BIN } from '../helpers/cli.js';

/**
 * `delivered_files` over `reportd mcp` (the built CLI on stdio, the MCP SDK's client checking the
 * answer against the tool's output schema): what one reader got on one day, exactly, with hashes —
 * the same record `reportd history --files` reads.
 */
const tmp = tempDir();
let client: Client;
const DAY = Date.parse('2026-03-02T00:00:00Z');
const hash = (c: string) => c.repeat(64);

beforeAll(async () => {
  const path = join(tmp.dir, 'reportd.sqlite');
  const store = await openStore(path);
  const base = { deliveryId: 1, report: 'weekly', destination: 'email', size: 1000 };
  await recordDeliveredFiles(store, [
    // The reader's day: an attachment and a linked file.
    {
      ...base,
      reader: 'cfo@example.com',
      location: 'attachment',
      file: 'a.pdf',
      object: 'a.pdf',
      sha256: hash('a'),
      deliveredAt: DAY + 8 * 3600_000,
    },
    {
      ...base,
      deliveryId: 2,
      reader: 'cfo@example.com',
      location: 's3 bucket reports',
      file: 'b.xlsx',
      object: 'weekly/2026/9/b.xlsx',
      sha256: hash('b'),
      deliveredAt: DAY + 23 * 3600_000,
    },
    // Another reader the same day, and the same reader the day before and after: not in the answer.
    {
      ...base,
      reader: 'cmo@example.com',
      location: 'attachment',
      file: 'a.pdf',
      object: 'a.pdf',
      sha256: hash('a'),
      deliveredAt: DAY + 9 * 3600_000,
    },
    {
      ...base,
      deliveryId: 3,
      reader: 'cfo@example.com',
      location: 'attachment',
      file: 'c.pdf',
      object: 'c.pdf',
      sha256: hash('c'),
      deliveredAt: DAY - 1,
    },
    {
      ...base,
      deliveryId: 4,
      reader: 'cfo@example.com',
      location: 'attachment',
      file: 'd.pdf',
      object: 'd.pdf',
      sha256: hash('d'),
      deliveredAt: DAY + 24 * 3600_000,
    },
  ]);
  await store.close();
  const config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: acme, base_url: "http://127.0.0.1:9", api_key: k, api_secret: s }
store: { path: reportd.sqlite }
`,
  );
  client = new Client({ name: 'reportd-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--config', config],
      stderr: 'pipe',
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
  tmp.cleanup();
});

describe('the delivered_files MCP tool', () => {
  it('lists exactly what one reader got on one day, with hashes', async () => {
    const result = await client.callTool({
      name: 'delivered_files',
      arguments: { reader: 'cfo@example.com', date: '2026-03-02' },
    });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as { total: number; files: Record<string, unknown>[] };
    expect(answer.total).toBe(2);
    expect(answer.files.map((f) => [f.file, f.location, f.sha256, f.size_bytes, f.delivered_at])).toEqual([
      ['a.pdf', 'attachment', hash('a'), 1000, '2026-03-02T08:00:00.000Z'],
      ['b.xlsx', 's3 bucket reports', hash('b'), 1000, '2026-03-02T23:00:00.000Z'],
    ]);
  });

  it('a day that is not one is a one-line tool error', async () => {
    const result = await client.callTool({
      name: 'delivered_files',
      arguments: { reader: 'cfo@example.com', date: '2026-13-45' },
    });
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[]).map((c) => c.text).join('\n');
    expect(text).toMatch(/not a calendar day/);
    expect(text).not.toMatch(/\n\s+at /);
  });
});
