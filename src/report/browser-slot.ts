import puppeteer, { type Browser } from 'puppeteer-core';
import { CHROMIUM_ARGS, headlessMode } from './chromium.js';
import type { Lane } from './page-lane.js';

/** A lane not printing: being opened or cleared for the next render, or ready for it. */
export interface IdleLane {
  lane: Promise<Lane>;
  ready: boolean;
}

/** One Chromium process of the renderer's pool and the lanes (pages) it serves. */
export interface BrowserSlot {
  browser: Promise<Browser>;
  /** Lanes not printing, oldest first. */
  idle: IdleLane[];
  /** Lanes open in this browser, printing or idle. */
  lanes: number;
  renders: number;
  inFlight: number;
  retired: boolean;
  closing?: Promise<void>;
  /** Set while Chromium is starting: aborting it ends that Chromium and fails the launch at once. */
  launching?: AbortController;
}

export interface LaunchOptions {
  executablePath: string;
  handleSignals: boolean;
  protocolTimeoutMs: number;
  /** Kills the browser being launched and rejects the launch (puppeteer's own option). */
  signal?: AbortSignal;
}

/**
 * Puppeteer-core, not puppeteer: reportd always drives a browser it found itself (findChromium), so
 * puppeteer's own layer (its config file search and browser download manager) is only weight on a
 * cold start.
 */
export function launchBrowser(options: LaunchOptions): Promise<Browser> {
  return puppeteer.launch({
    executablePath: options.executablePath,
    headless: headlessMode(options.executablePath),
    // A pipe instead of a websocket: when this process dies, even by SIGKILL, the pipe closes and
    // Chromium exits on its own instead of living on as an orphan.
    pipe: true,
    args: [...CHROMIUM_ARGS],
    handleSIGINT: options.handleSignals,
    handleSIGTERM: options.handleSignals,
    handleSIGHUP: options.handleSignals,
    protocolTimeout: options.protocolTimeoutMs,
    signal: options.signal,
  });
}

/**
 * Ends a browser. Gracefully by default: Chromium quits and reaps its own renderer and helper
 * processes (a wedged one is killed after 5 s). With `kill`, at once: the profile is a temporary
 * folder and every PDF has been handed over, so a graceful close saves nothing for a process about
 * to exit, and it cost 0.15–0.4 s at the end of every `reportd render`. Chromium leads its own process
 * group (puppeteer starts it detached), so one SIGKILL to the group ends its helpers too; they are
 * then reaped by init, which is why a long-running daemon does not close this way (under an init
 * that does not reap, as in a container without tini, they would pile up as zombies). Either way
 * `browser.close()` removes the temporary profile.
 */
export async function endBrowser(browser: Browser, options: { kill: boolean }): Promise<void> {
  const pid = browser.process()?.pid;
  if (options.kill && pid !== undefined) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      browser.process()?.kill('SIGKILL'); // not a group leader after all, or already gone
    }
  }
  await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]).catch(
    () => undefined,
  );
  browser.process()?.kill('SIGKILL'); // still there after 5 s: wedged
}

/**
 * Lanes a browser keeps before a render waits for one: one printing, one being cleared. Only a
 * document that may have scheduled a refresh is cleared (see clearLane); without a spare, the render
 * after it would wait for that navigation.
 */
export const SPARE_LANES = 2;

/**
 * Puts a lane in the slot's idle list: ready at once (`ready`, a lane given back as it is), or once it
 * is opened or cleared.
 */
export function offerLane(slot: BrowserSlot, lane: Promise<Lane>, options: { ready?: boolean } = {}): void {
  const entry: IdleLane = { lane, ready: options.ready === true };
  const settle = () => {
    entry.ready = true;
  };
  lane.then(settle, settle);
  slot.idle.push(entry);
}

/**
 * The lane for the next render on this browser: the oldest ready one; when none is ready (the last
 * document's page is still being cleared), a spare is opened (up to SPARE_LANES) and whichever of it
 * and the lanes being cleared is ready first serves, the other stays for the render after. A lane that failed to open or clear is not fatal:
 * this render opens its own.
 */
export async function takeLane(slot: BrowserSlot, open: () => Promise<Lane>): Promise<Lane> {
  for (;;) {
    const ready = slot.idle.findIndex((entry) => entry.ready);
    if (ready >= 0) return slot.idle.splice(ready, 1)[0]!.lane.catch(open);
    if (slot.idle.length === 0) return open();
    // Not while a browser's first page is still opening: a cold `reportd render` of one report would
    // pay for a second page (a context and a renderer process) it never uses.
    if (slot.renders > 0 && slot.lanes < SPARE_LANES) offerLane(slot, open());
    const settled = () => undefined;
    await Promise.race(slot.idle.map((entry) => entry.lane.then(settled, settled)));
  }
}
