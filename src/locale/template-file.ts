import { readFileSync, realpathSync } from 'node:fs';
import { relative } from 'node:path';
import { TemplateError } from '../errors/index.js';

/**
 * A file of an author's template folder, read only when it really is inside that folder. A symbolic
 * link out of it (`report.css` → `~/.ssh/id_rsa`) would otherwise put whatever it points at into a
 * preview, a PDF or an email: it is refused with a line naming the link and where it leads.
 */
export function readTemplateFile(root: string, file: string): string {
  let real: string;
  let realRoot: string;
  try {
    real = realpathSync(file);
    realRoot = realpathSync(root);
  } catch {
    // Missing: the read below says so in the caller's words.
    return readFileSync(file, 'utf8');
  }
  const inside = relative(realRoot, real);
  if (inside === '' || inside.startsWith('..') || inside.startsWith('/'))
    throw new TemplateError(
      `${file} leads to ${real}, outside the template folder ${root}: a template file must be inside its folder`,
    );
  return readFileSync(real, 'utf8');
}

/** Reads `file` through `readTemplateFile` when it lies under the author's `root`, else as it is. */
export function readUnder(root: string | undefined, file: string): string {
  return root && !relative(root, file).startsWith('..')
    ? readTemplateFile(root, file)
    : readFileSync(file, 'utf8');
}
