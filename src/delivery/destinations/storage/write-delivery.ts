import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type NameVariables, objectName } from './names.js';
import type { LocalFile, ObjectStore } from './object-store.js';

/** One file of a delivery: the attachment name it goes by, and where it is on this machine. */
export interface DeliveryFile extends LocalFile {
  name: string;
}

/** What the manifest says about the delivery besides its files (run, slice, recipient). */
export interface ManifestHead {
  delivery: string;
  report: string;
  account: string | null;
  recipient: string;
  runs: { query_set_id: number; query_set: string; run_id: number; run: string }[];
}

/** A file as it now is at the destination: its object name, size and SHA-256, and whether this attempt wrote it. */
export interface WrittenFile {
  file: string;
  object: string;
  size: number;
  sha256: string;
  written: boolean;
}

/**
 * Writes a delivery's files, then its manifest, each only when the store does not already hold it
 * with the same hash: a retried or repeated delivery writes the same names and nothing twice, and a
 * reader who finds the manifest knows every file it lists is there, whole. The manifest holds no
 * time, so it is byte for byte the same on every attempt.
 */
export async function writeDelivery(
  store: ObjectStore,
  options: {
    template: string;
    vars: Omit<NameVariables, 'file'>;
    head: ManifestHead;
    files: readonly DeliveryFile[];
  },
  signal?: AbortSignal,
): Promise<WrittenFile[]> {
  const nameOf = (file: string) => objectName(options.template, { ...options.vars, file });
  const out: WrittenFile[] = [];
  for (const file of options.files) out.push(await writeOnce(store, nameOf(file.name), file, signal));
  const manifest = JSON.stringify(
    {
      ...options.head,
      files: out.map(({ file, object, size, sha256 }) => ({ name: file, object, size, sha256 })),
    },
    null,
    2,
  );
  const dir = await mkdtemp(join(tmpdir(), 'reportd-manifest-'));
  try {
    const path = join(dir, 'manifest.json');
    await writeFile(path, manifest);
    const bytes = Buffer.from(manifest);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    out.push(
      await writeOnce(
        store,
        nameOf('manifest.json'),
        { name: 'manifest.json', path, size: bytes.length, sha256 },
        signal,
      ),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}

async function writeOnce(
  store: ObjectStore,
  object: string,
  file: DeliveryFile,
  signal?: AbortSignal,
): Promise<WrittenFile> {
  const there = await store.stat(object);
  const same = there?.sha256 === file.sha256 && there.size === file.size;
  if (!same) await store.put(object, file, signal);
  return { file: file.name, object, size: file.size, sha256: file.sha256, written: !same };
}
