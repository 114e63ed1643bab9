import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findChromium } from '../../src/report/chromium.js';

/**
 * The real Chromium behind a gate, for tests that stop `reportd deliver` "during render": pass
 * `path` as REPORTD_CHROMIUM and the browser's launch waits until `release()`. A print takes ~150 ms and
 * a launch ~300 ms, so a test that polled for the rendering state and then acted raced with a render
 * that had already finished and sent; held at the gate, the render stays in progress for as long as
 * the test needs, and opening the gate lets it finish as it would have. The waiting script's command
 * line names Chromium, so `chromiumProcessesWith` finds (and a test can kill) it like the browser.
 */
export interface GatedChromium {
  path: string;
  /** Closes the gate: the next launch waits. */
  hold(): void;
  /** Opens it: a waiting launch goes on. */
  release(): void;
}

export function gatedChromium(dir: string): GatedChromium {
  const gate = join(dir, 'chromium-gate');
  const path = join(dir, 'gated-chromium');
  writeFileSync(
    path,
    `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\nexec '${findChromium()}' "$@"\n`,
  );
  chmodSync(path, 0o755);
  return {
    path,
    hold: () => rmSync(gate, { force: true }),
    release: () => writeFileSync(gate, ''),
  };
}
