#!/usr/bin/env node
// Launcher: runs the bundled CLI (built by `npm run build`, which `npm ci` runs through `prepare`;
// scripts/build-cli.ts says why it is bundled).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/bundle/reportd.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('reportd: not built yet, run `npm run build` (or `npm ci`) first\n');
  process.exit(2);
}
await import(entry.href);
