import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import { PACKAGED_TEMPLATES_DIR } from '../report/templates.js';

/**
 * A page the shells serve from a template that ships with reportd (templates/<area>/<name>): the
 * status page, the studio's page. Handlebars escapes every `{{value}}`. The file is read and
 * compiled on the first render only, once per process: it is part of the install, not the author's.
 */
export function packagedPage<View>(area: string, name: string): (view: View) => string {
  let compiled: Handlebars.TemplateDelegate<View> | undefined;
  return (view) => {
    compiled ??= Handlebars.create().compile<View>(
      readFileSync(join(PACKAGED_TEMPLATES_DIR, area, name), 'utf8'),
      { strict: false },
    );
    return compiled(view);
  };
}
