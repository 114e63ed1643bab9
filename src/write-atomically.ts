import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes a file whole or not at all: to a temporary name beside it, then renamed over it, so a reader
 * (or a crash) never meets half a report or half an export.
 */
export function writeAtomically(file: string, content: string | Uint8Array): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
