/**
 * Writes docs/reference/cli.md from the commander program (src/cli/). Run after adding or changing a
 * command or option: `npm run gen:cli` (test/docs/cli-reference.test.ts fails while the page is stale).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLI_REFERENCE_FILE, cliProgram, renderCliReference } from '../src/cli/reference.js';

const root = fileURLToPath(new URL('../', import.meta.url));
writeFileSync(root + CLI_REFERENCE_FILE, renderCliReference(await cliProgram()));
process.stdout.write(`wrote ${CLI_REFERENCE_FILE}\n`);
