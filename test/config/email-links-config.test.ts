import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { MINIMAL, problems, writeConfig } from './fixtures.js';

/** `reports[].email.attach / links_from / link_expiry`: each mistake one line naming its path. */
const BASE = `${MINIMAL}smtp: { host: mail.example.com, from: reports@example.com }
channels:
  - { name: archive, type: s3, bucket: reports }
  - { name: share, type: folder, path: /mnt/reports }
`;
const report = (email: string) => `${BASE}reports:
  - { name: weekly, trigger: new_run, email: { to: [cfo@example.com], ${email} } }
`;
const check = (text: string) => problems(() => loadConfig(writeConfig(text), {}));

describe('email links in the config', () => {
  it('accepts links from an s3 channel, with the default expiry of 7 days; attach defaults to files', () => {
    const config = loadConfig(writeConfig(report('attach: auto, links_from: archive')), {});
    expect(config.reports[0]?.email).toMatchObject({
      attach: 'auto',
      links_from: 'archive',
      link_expiry: '7d',
    });
    const plain = loadConfig(writeConfig(report('subject: Hi')), {});
    expect(plain.reports[0]?.email?.attach).toBe('files');
  });

  it("refuses an expiry past SigV4's 7 days, in one line naming the path", () => {
    expect(check(report('attach: links, links_from: archive, link_expiry: 8d'))).toEqual([
      'reports[0].email.link_expiry: at most 7d (S3 pre-signed links, SigV4, last 7 days at most)',
    ]);
    expect(check(report('attach: links, links_from: archive, link_expiry: 169h'))).toEqual([
      'reports[0].email.link_expiry: at most 7d (S3 pre-signed links, SigV4, last 7 days at most)',
    ]);
    expect(
      loadConfig(writeConfig(report('attach: links, links_from: archive, link_expiry: 168h')), {}),
    ).toBeTruthy();
    expect(check(report('attach: links, links_from: archive, link_expiry: soon'))).toEqual([
      'reports[0].email.link_expiry: a duration such as 7d, 12h, 30m or 90s',
    ]);
  });

  it('links_from must name an s3 channel, and links need one', () => {
    expect(check(report('attach: links, links_from: share'))).toEqual([
      'reports[0].email.links_from: "share" is not an s3 channel (s3 channels: archive)',
    ]);
    expect(check(report('attach: links, links_from: nowhere'))).toEqual([
      'reports[0].email.links_from: "nowhere" is not an s3 channel (s3 channels: archive)',
    ]);
    expect(check(report('attach: auto'))).toEqual([
      'reports[0].email.links_from: required with attach: auto (the S3 channel the links point into)',
    ]);
  });
});
