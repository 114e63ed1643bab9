import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { internalAddress } from '../../src/config/destination-address.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';

/**
 * `reportd check` refuses channel URLs on loopback, link-local (cloud metadata), private and CGNAT
 * addresses, written as an address or as a name that resolves to one, unless the channel says
 * `allow_private_network: true`: one line per channel naming it and the host, never the URL's path.
 */
const tmp = tempDir();
afterAll(() => tmp.cleanup());
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

function config(channels: string): string {
  const file = join(tmp.dir, `reportd-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    `accounts:
  - { name: acme, base_url: "https://api.example.com/v2/integration", api_key: k, api_secret: s }
channels:
${channels}reports:
  - { name: weekly, query_sets: [101], trigger: new_run, channels: [hook] }
`,
  );
  return file;
}

describe('reportd check and private destination addresses', () => {
  it('refuses the metadata address, a private Teams URL and a name resolving to loopback: one line each, no path', async () => {
    const file =
      config(`  - { name: hook, type: webhook, url: "http://169.254.169.254/latest/meta-data/tok3n", secret: "${SECRET}" }
  - { name: leadership, type: teams, webhook_url: "https://10.1.2.3/webhookb2/s3cret-path" }
  - { name: local, type: webhook, url: "http://localhost:8080/hook", secret: "${SECRET}" }
  - { name: marketing, type: slack, token: xoxb-1, channel: C1, api_url: "http://[fd00:ec2::254]/api/" }
`);
    const result = await runCli(['check', '--config', file]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /^ {2}channels\[0\]\.url: channel hook: host 169\.254\.169\.254 is a link-local address \(cloud metadata lives at 169\.254\.169\.254\); set allow_private_network: true/,
      ),
      expect.stringMatching(
        /^ {2}channels\[1\]\.webhook_url: channel leadership: host 10\.1\.2\.3 is a private address;/,
      ),
      expect.stringMatching(
        /^ {2}channels\[2\]\.url: channel local: host localhost resolves to (127\.0\.0\.1|::1), a loopback address;/,
      ),
      expect.stringMatching(
        /^ {2}channels\[3\]\.api_url: channel marketing: host fd00:ec2::254 is a private/,
      ),
    ]);
    expect(result.stderr).not.toMatch(/meta-data|tok3n|s3cret-path|webhookb2/);
  }, 60_000);

  it('refuses an IPv4 address written as IPv6 (the URL parser turns ::ffff:10.0.0.1 into ::ffff:a00:1)', async () => {
    const file =
      config(`  - { name: hook, type: webhook, url: "http://[::ffff:10.0.0.1]/hook", secret: "${SECRET}" }
  - { name: leadership, type: teams, webhook_url: "http://[::ffff:169.254.169.254]/latest/meta-data/" }
`);
    const result = await runCli(['check', '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n').slice(1)).toEqual([
      expect.stringMatching(/^ {2}channels\[0\]\.url: channel hook: host ::ffff:a00:1 is a private address;/),
      expect.stringMatching(
        /^ {2}channels\[1\]\.webhook_url: channel leadership: host ::ffff:a9fe:a9fe is a link-local address/,
      ),
    ]);
  }, 60_000);

  it('accepts them with allow_private_network: true (loopback stand-ins, sidecars)', async () => {
    const file = config(
      `  - { name: hook, type: webhook, url: "http://127.0.0.1:8080/hook", secret: "${SECRET}", allow_private_network: true }
`,
    );
    const result = await runCli(['check', '--config', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);

  it('knows the ranges: private, CGNAT, mapped IPv4, and public addresses pass', () => {
    expect(internalAddress('172.31.255.255')).toBe('a private address');
    expect(internalAddress('172.32.0.1')).toBeUndefined();
    expect(internalAddress('100.100.100.200')).toMatch(/carrier-grade NAT/);
    expect(internalAddress('::ffff:192.168.1.1')).toBe('a private address');
    // The same addresses as a URL parser writes them, IPv4-compatible, and through NAT64.
    expect(internalAddress('::ffff:c0a8:101')).toBe('a private address');
    expect(internalAddress('::ffff:7f00:1')).toBe('a loopback address');
    expect(internalAddress('::a9fe:a9fe')).toMatch(/^a link-local address/);
    expect(internalAddress('64:ff9b::a9fe:a9fe')).toMatch(/^a link-local address/);
    expect(internalAddress('::ffff:808:808')).toBeUndefined();
    expect(internalAddress('::1')).toBe('a loopback address');
    expect(internalAddress('fe80::1')).toBe('a link-local address');
    expect(internalAddress('8.8.8.8')).toBeUndefined();
    expect(internalAddress('2606:4700::1111')).toBeUndefined();
  });
});
