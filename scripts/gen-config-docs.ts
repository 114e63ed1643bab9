/**
 * Writes config/reportd.schema.json and docs/reference/config.md from src/config/schema.ts.
 * Run after changing the schema: `npm run gen:config` (test/config/generated-docs.test.ts fails
 * while either file is stale).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  JSON_SCHEMA_FILE,
  REFERENCE_FILE,
  renderConfigReference,
  renderJsonSchema,
} from '../src/config/reference.js';

const root = fileURLToPath(new URL('../', import.meta.url));
writeFileSync(root + JSON_SCHEMA_FILE, renderJsonSchema());
writeFileSync(root + REFERENCE_FILE, renderConfigReference());
process.stdout.write(`wrote ${JSON_SCHEMA_FILE} and ${REFERENCE_FILE}\n`);
