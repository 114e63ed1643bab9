import { BlockList, isIP } from 'node:net';
import type { ConfigIssue } from '../errors/index.js';
import type { Config } from './index.js';

/**
 * Channel URLs that point inside the network reportd runs in. A webhook or Teams URL is written by
 * whoever edits the config, and reportd POSTs report data to it: on a cloud host, 169.254.169.254
 * answers with the instance's credentials, and private addresses reach services never meant to be
 * posted to. So `check` refuses them unless the channel says `allow_private_network: true` (a
 * receiver on the same host or network: a sidecar, a test stand-in — loopback counts as private).
 */
const RANGES: readonly [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'a "this network" address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (cloud metadata lives at 169.254.169.254)'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a carrier-grade NAT address (cloud metadata lives at 100.100.100.200 on some)'],
  ['::', 128, 'ipv6', 'the unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fc00::', 7, 'ipv6', 'a private (unique local) address (cloud metadata lives at fd00:ec2::254)'],
];

const lists = RANGES.map(([network, prefix, type, what]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { list, type, what };
});

/** What kind of internal address `ip` is, or undefined for a public one. */
export function internalAddress(ip: string): string | undefined {
  const address = embeddedIPv4(ip) ?? ip;
  const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  return lists.find((entry) => entry.type === type && entry.list.check(address, type))?.what;
}

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped (`::ffff:10.0.0.1`, which a URL
 * parser rewrites as `::ffff:a00:1`), IPv4-compatible (`::10.0.0.1`) and NAT64 (`64:ff9b::/96`). A
 * dual-stack host connects to the IPv4 address, so it is judged as that address.
 */
function embeddedIPv4(ip: string): string | undefined {
  if (isIP(ip) !== 6) return undefined;
  const words = ipv6Words(ip);
  if (!words) return undefined;
  const head = words.slice(0, 6);
  const zeros = (n: number) => head.slice(0, n).every((w) => w === 0);
  const mapped = zeros(5) && head[5] === 0xffff;
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  const compatible = zeros(6) && (words[6] !== 0 || words[7]! > 1);
  const nat64 = head[0] === 0x64 && head[1] === 0xff9b && head.slice(2).every((w) => w === 0);
  if (!mapped && !compatible && !nat64) return undefined;
  return [words[6]! >> 8, words[6]! & 0xff, words[7]! >> 8, words[7]! & 0xff].join('.');
}

/** The eight 16-bit words of a valid IPv6 address (`::` expanded, a dotted IPv4 tail read as two). */
function ipv6Words(ip: string): number[] | undefined {
  let text = ip.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const part = (s: string) => (s ? s.split(':').map((w) => Number.parseInt(w, 16)) : []);
  const l = part(left);
  const r = right === undefined ? [] : part(right);
  const words = right === undefined ? l : [...l, ...new Array(8 - l.length - r.length).fill(0), ...r];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff)
    ? words
    : undefined;
}

/** The URL each channel type sends to, by field name. */
function destinationOf(channel: Config['channels'][number]): { field: string; url: string } | undefined {
  if (channel.type === 'slack') return { field: 'api_url', url: channel.api_url };
  if (channel.type === 'teams')
    return channel.webhook_url ? { field: 'webhook_url', url: channel.webhook_url } : undefined;
  if (channel.type === 'webhook') return { field: 'url', url: channel.url };
  // Storage channels (S3, SFTP, folder) live on the operator's own network by design.
  return undefined;
}

/**
 * One issue per channel whose URL's host is, or resolves to, an internal address, naming the channel
 * and the host only (a URL's path and query may hold its token). A host that does not resolve is not
 * judged here: it cannot be reached either, and the first delivery says so.
 */
export async function destinationIssues(config: Config): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  for (const [index, channel] of config.channels.entries()) {
    if ('allow_private_network' in channel && channel.allow_private_network) continue;
    const destination = destinationOf(channel);
    if (!destination) continue;
    const host = new URL(destination.url).hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        // The resolver only when a channel names a host: most configs have none.
        const { lookup } = await import('node:dns/promises');
        addresses = (await lookup(host, { all: true })).map((a) => a.address);
      } catch {
        continue;
      }
    }
    const found = addresses
      .map((address) => ({ address, what: internalAddress(address) }))
      .find((a) => a.what);
    if (!found) continue;
    const where = found.address === host ? `host ${host} is` : `host ${host} resolves to ${found.address},`;
    issues.push({
      path: `channels[${index}].${destination.field}`,
      message: `channel ${channel.name}: ${where} ${found.what}; set allow_private_network: true on the channel if that receiver is meant to be on this network`,
    });
  }
  return issues;
}
