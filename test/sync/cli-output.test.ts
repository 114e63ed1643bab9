import { describe, expect, it } from 'vitest';
import { failureReason, formatDuration, progressPrinter } from '../../src/cli/sync.js';
import { emptySyncSummary, type SyncProgress, type SyncSummary } from '../../src/sync/types.js';

const summary = (over: Partial<SyncSummary>): SyncSummary => ({ ...emptySyncSummary(1), ...over });

const progress = (over: Partial<SyncProgress>): SyncProgress => ({
  phase: 'fetch',
  account: 'acme',
  snapshotsDone: 0,
  snapshotsTotal: 4,
  payloadsDone: 0,
  payloadsTotal: 136,
  requests: 5,
  etaMs: 6000,
  ...over,
});

function fakeStream(isTTY: boolean) {
  const chunks: string[] = [];
  return {
    chunks,
    stream: { isTTY, write: (chunk: string) => chunks.push(chunk) } as unknown as NodeJS.WriteStream,
  };
}

describe('sync command output', () => {
  it('gives one line for a failed pass, the -4 first', () => {
    expect(failureReason(summary({ snapshotsDue: 2, snapshotsCompleted: 2 }))).toBeUndefined();
    const errors: SyncSummary['errors'] = [
      { account: 'a', kind: 'request_failed', message: 'account a: query set 1, run 2: gave up' },
      { account: 'b', kind: 'not_authorized', message: 'account b: not authorized (GET /brands/list)' },
    ];
    expect(failureReason(summary({ errors }))).toBe(
      'account b: not authorized (GET /brands/list) (and 1 more problem)',
    );
    expect(failureReason(summary({ snapshotsIncomplete: 1 }))).toMatch(/^1 due snapshot is not complete/);
    expect(failureReason(summary({ aborted: true }))).toMatch(/interrupted/);
  });

  it('redraws one line with \\r on a TTY and writes plain lines per completed snapshot otherwise', () => {
    const tty = fakeStream(true);
    const bar = progressPrinter(tty.stream);
    bar.update(progress({ payloadsDone: 68, snapshotsDone: 2 }));
    bar.finish();
    expect(tty.chunks[0]).toMatch(
      /^\r\[#{12}\.{12}\] 2\/4 snapshots, 68\/136 payloads, 5 requests, ETA 0:06/,
    );
    expect(tty.chunks.at(-1)).toBe('\n');

    const plain = fakeStream(false);
    const lines = progressPrinter(plain.stream);
    for (let done = 0; done <= 2; done++) {
      lines.update(progress({ snapshotsDone: done }));
      lines.update(progress({ snapshotsDone: done, requests: 9 }));
    }
    lines.finish();
    expect(plain.chunks).toHaveLength(3);
    expect(
      plain.chunks.every((line) => line.startsWith('sync: ') && line.endsWith('\n') && !line.includes('\r')),
    ).toBe(true);
  });

  it('formats an ETA as m:ss or h:mm:ss', () => {
    expect(formatDuration(0)).toBe('0:00');
    expect(formatDuration(61_001)).toBe('1:02');
    expect(formatDuration(3_723_000)).toBe('1:02:03');
  });
});
