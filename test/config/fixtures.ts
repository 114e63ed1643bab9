import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../src/errors/index.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'reportd-config-'));
  made.push(dir);
  return dir;
}

/** Writes `text` as reportd.yaml in a fresh folder and returns its path. */
export function writeConfig(text: string, dir = tempDir()): string {
  const file = join(dir, 'reportd.yaml');
  writeFileSync(file, text);
  return file;
}

/** The smallest valid config: one account, everything else defaulted. */
export const MINIMAL = `
accounts:
  - name: acme
    base_url: https://api.example.com/v2/integration
    api_key: key-1
    api_secret: secret-one
`;

/** The issues of the ConfigError `run` throws; fails the test when it does not throw one. */
export function issuesOf(run: () => unknown): ConfigIssue[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError, but the config was accepted');
}

/** Same, as `path: message` lines, for compact assertions. */
export function problems(run: () => unknown): string[] {
  return issuesOf(run).map((issue) => `${issue.path}: ${issue.message}`);
}
