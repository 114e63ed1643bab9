// reportd renders with the system Chromium (Debian's `chromium-headless-shell` or `chromium` package,
// or REPORTD_CHROMIUM).
// Puppeteer's own browser download cannot work on machines without internet access, so it is
// skipped whenever a system browser is already present; elsewhere puppeteer may fetch its own.
const { existsSync } = require('node:fs');

const candidates = [
  process.env.REPORTD_CHROMIUM,
  process.env.PUPPETEER_EXECUTABLE_PATH,
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
].filter(Boolean);

const systemBrowser = candidates.find((path) => existsSync(path));

/** @type {import('puppeteer').Configuration} */
module.exports = {
  skipDownload: Boolean(systemBrowser),
  chrome: { skipDownload: Boolean(systemBrowser) },
  'chrome-headless-shell': { skipDownload: true },
  firefox: { skipDownload: true },
};
