import { accessSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ChromiumNotFoundError } from '../errors/index.js';

/**
 * Where Debian, Ubuntu, Fedora, Alpine, snap and macOS put a Chromium-family browser, in order. The
 * headless shell first: it prints the same PDFs with the same Blink as the full browser (Debian
 * builds both from one source), without the browser UI layers that headless Chrome still starts:
 * on 2 cores 216 ms of CPU per report against 293, a cold render 0.93 s against 1.56. The
 * binary itself, not Debian's /usr/bin wrapper script, which would stay behind as Chromium's parent.
 */
export const CHROMIUM_CANDIDATES: readonly string[] = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/lib/chromium/chromium',
  '/snap/bin/chromium',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

const INSTALL_HINT =
  'install it with `apt-get install chromium-headless-shell` (or chromium) or set REPORTD_CHROMIUM / chromium.path';

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The browser to drive: `REPORTD_CHROMIUM` first, then config `chromium.path`, then the usual install
 * locations. An explicit path that does not work is an error naming it (never a silent fallback to a
 * different browser); no browser at all is an error naming the install command.
 */
export function findChromium(
  options: { configPath?: string; env?: NodeJS.ProcessEnv; candidates?: readonly string[] } = {},
): string {
  const env = options.env ?? process.env;
  const fromEnv = env.REPORTD_CHROMIUM?.trim();
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new ChromiumNotFoundError(`REPORTD_CHROMIUM=${fromEnv} is not an executable file; ${INSTALL_HINT}`);
  }
  if (options.configPath) {
    if (isExecutable(options.configPath)) return options.configPath;
    throw new ChromiumNotFoundError(
      `chromium.path ${options.configPath} is not an executable file; ${INSTALL_HINT}`,
    );
  }
  const candidates = options.candidates ?? CHROMIUM_CANDIDATES;
  const found = candidates.find(isExecutable);
  if (found) return found;
  // Where no system browser exists, .puppeteerrc.cjs lets `npm ci` download Puppeteer's own.
  const downloaded = options.candidates ? undefined : puppeteerBrowser();
  if (downloaded) return downloaded;
  throw new ChromiumNotFoundError(`no Chromium found (looked in ${candidates.join(', ')}); ${INSTALL_HINT}`);
}

/**
 * Flags for a print-only browser: no sandbox (containers run as root), no GPU, no background traffic
 * of any kind (updates, sync, metrics, QUIC), so the only requests Chromium could make are the page's,
 * and those are blocked by request interception.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-quic',
  '--disable-extensions',
  '--disable-default-apps',
  '--disable-breakpad',
  '--disable-crash-reporter',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication',
  '--metrics-recording-only',
  '--mute-audio',
  '--hide-scrollbars',
  '--font-render-hinting=none',
];

/**
 * Puppeteer's `headless` for a browser binary: `'shell'` (plain `--headless`) for a Chromium headless
 * shell (Debian's `chromium-headless-shell`, Chrome for Testing's `chrome-headless-shell`), `true`
 * (`--headless=new`) for a full Chromium or Chrome.
 */
export function headlessMode(path: string): 'shell' | true {
  return /headless[-_]shell[^/\\]*$/i.test(path) ? 'shell' : true;
}

/** The browser Puppeteer downloaded at install time, if it did. */
function puppeteerBrowser(): string | undefined {
  try {
    // Required here, not imported: the daemon checks for a browser at start without loading puppeteer.
    const puppeteer = createRequire(import.meta.url)('puppeteer') as { executablePath(): string };
    const path = puppeteer.executablePath();
    return isExecutable(path) ? path : undefined;
  } catch {
    return undefined; // no download configured or found
  }
}
