import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * `http.allowed_hosts` cannot open the door it guards: a public suffix (from the Public Suffix List)
 * or a bare wildcard would let every site under it name reportd's servers as `Host` (DNS rebinding),
 * so `check` refuses it in one line naming the entry, and accepts a real name beside it.
 */

const dir = mkdtempSync(join(tmpdir(), 'reportd-allowed-hosts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const configWith = (hosts: string) => {
  const path = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    path,
    `accounts:
  - { name: acme, base_url: "https://api.example.com/v2/integration", api_key: k, api_secret: s }
http: { port: 9464, host: 127.0.0.1, allowed_hosts: ${hosts} }
`,
  );
  return path;
};

describe('check and http.allowed_hosts', () => {
  it('refuses .com, * and .co.uk in one line each, and accepts a name of this server', async () => {
    for (const [hosts, words] of [
      ['[".com"]', /"\.com" is a public suffix/],
      ['["*"]', /"\*" allows every name/],
      ['[".co.uk"]', /"\.co\.uk" is a public suffix/],
    ] as const) {
      const result = await runCli(['check', '--config', configWith(hosts)]);
      expect(result.code, hosts).not.toBe(0);
      expect(result.stderr, hosts).toMatch(words);
      expect(result.stderr, hosts).toMatch(/http\.allowed_hosts/);
      // The config's usual refusal: its path, then one line for the entry.
      expect(
        result.stderr.split('\n').filter((line) => line.includes('allowed_hosts')),
        hosts,
      ).toHaveLength(1);
    }
    const fine = await runCli([
      'check',
      '--config',
      configWith('["reports.example.com", ".svc.example.com"]'),
    ]);
    expect(fine.stderr).not.toMatch(/public suffix|every name/);
  }, 60_000);
});
