import { packagedPage } from '../status/packaged-page.js';
import { BUILT_IN_THEME } from './session.js';

/**
 * The studio's own page, from templates/studio/page.hbs. Its script (and only it: a nonce) picks what
 * to preview, shows it in tabs (document, printed pages, email, channel payloads) and reloads them
 * when the server says a file changed. The report itself is shown in a sandboxed iframe served with a
 * CSP that allows no script and no request but data: images: the renderer's rules.
 */
const page = packagedPage<{ nonce: string; builtInTheme: string }>('studio', 'page.hbs');

export function studioPage(nonce: string): string {
  return page({ nonce, builtInTheme: BUILT_IN_THEME });
}
