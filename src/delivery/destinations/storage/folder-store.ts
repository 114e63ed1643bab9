import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import {
  type LocalFile,
  type ObjectStore,
  partialName,
  StorageFault,
  type StoredObject,
  sidecarHash,
  sidecarText,
} from './object-store.js';

/**
 * A local or mounted folder: each file copied to a temporary name beside its final one, then renamed
 * (atomic within one file system), its `.sha256` written the same way.
 */
export function folderStore(root: string): ObjectStore {
  const where = `folder ${root}`;
  const at = (name: string) => {
    const path = join(root, name);
    // names.ts keeps names inside; this is the belt to its braces.
    if (relative(root, path).startsWith(`..${sep}`))
      throw new StorageFault('permanent', `${name}: outside ${root}`);
    return path;
  };
  const writeWhole = async (name: string, write: (tmp: string) => Promise<void>) => {
    const target = at(name);
    const tmp = at(partialName(name));
    try {
      await mkdir(dirname(target), { recursive: true });
      await write(tmp);
      await rename(tmp, target);
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => {});
      throw folderFault(error, where);
    }
  };
  return {
    where,
    async stat(name) {
      const found = await stat(at(name)).catch(() => undefined);
      if (!found?.isFile()) return undefined;
      const text = await readFile(`${at(name)}.sha256`, 'utf8').catch(() => '');
      const sha256 = sidecarHash(text);
      return { size: found.size, ...(sha256 ? { sha256 } : {}) } satisfies StoredObject;
    },
    async put(name, file: LocalFile) {
      // A missing root is an unmounted share: never create it on the local disk instead.
      const rootStat = await stat(root).catch(() => undefined);
      if (!rootStat?.isDirectory()) throw new StorageFault('permanent', `${where}: no such folder`);
      await writeWhole(name, (tmp) => copyFile(file.path, tmp));
      await writeWhole(`${name}.sha256`, (tmp) => writeFile(tmp, sidecarText(file.sha256, name)));
    },
    async remove(name) {
      await rm(at(name), { force: true });
      await rm(`${at(name)}.sha256`, { force: true });
    },
    close: async () => {},
  };
}

/** A file system error as a one-line fault: a full disk may clear, a refusal will not. */
function folderFault(error: unknown, where: string): StorageFault {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new StorageFault('transient', `${where}: disk full (${code})`);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new StorageFault('permanent', `${where}: permission denied (${code})`);
  if (error instanceof StorageFault) return error;
  return new StorageFault('transient', `${where}: ${code ?? (error as Error).message}`, { cause: error });
}
