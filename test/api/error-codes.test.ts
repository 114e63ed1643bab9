import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorCodeRow } from '../../src/api/error-codes.js';
import { ApiError, TransientApiError } from '../../src/errors/index.js';

/** The codes of the spec's Errors table, as of this writing (the parse below catches later additions). */
const SPEC_CODES = [-4, -3, -132, -145];

const specFile = fileURLToPath(new URL('../../../shared/integration-api-spec.md', import.meta.url));

/** `| -4 | Not authorized | \`Not authorized\` | … |` rows of the "## Errors" section. */
function codesInSpec(text: string): { code: number; message?: string }[] {
  const section = text.split(/^## /m).find((s) => s.startsWith('Errors'));
  if (!section) throw new Error('spec has no "## Errors" section');
  return [...section.matchAll(/^\|\s*(-?\d+)\s*\|[^|]*\|([^|]*)\|/gm)].map((m) => ({
    code: Number(m[1]),
    message: /`([^`]+)`/.exec(m[2]!)?.[1],
  }));
}

describe('error code table', () => {
  it('has a row for every code the spec names', () => {
    for (const code of SPEC_CODES) expect(ERROR_CODES.has(code), `error_code ${code}`).toBe(true);
  });

  it.runIf(existsSync(specFile))(
    'has a row, with the documented message, for every code in the spec file',
    () => {
      const rows = codesInSpec(readFileSync(specFile, 'utf8'));
      expect(rows.map((r) => r.code).sort()).toEqual(expect.arrayContaining([...SPEC_CODES].sort()));
      for (const { code, message } of rows) {
        const row = ERROR_CODES.get(code);
        expect(row, `error_code ${code} from the spec has no row`).toBeDefined();
        if (message) expect(row?.message).toBe(message);
      }
    },
  );

  it('maps each code to the action the architecture decided', () => {
    const actions = Object.fromEntries([...ERROR_CODES.values()].map((r) => [r.code, r.action]));
    expect(actions).toEqual({
      '-4': 'stopAccount',
      '-3': 'failRequest',
      '-132': 'retireSet',
      '-145': 'waitWindow',
    });
    for (const row of ERROR_CODES.values()) {
      expect(new row.errorClass('x', { request: 'GET /x' })).toBeInstanceOf(ApiError);
    }
  });

  it('treats an unknown code as transient', () => {
    const row = errorCodeRow(-999);
    expect(row).toMatchObject({ code: -999, action: 'retry', outcome: 'transient' });
    expect(row.errorClass).toBe(TransientApiError);
  });
});
