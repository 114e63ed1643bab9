import type { Logo } from '../../report/theme/logo.js';
import { decodeRaster, encodePng, fitInBox } from '../../report/theme/raster-logo.js';

/**
 * The logo as an email shows it. The theme's PNG is drawn for print (up to 1200 × 400 pixels); an
 * email shows it in a slot of at most 200 × 40 CSS pixels, and Outlook on Windows sizes an image by
 * its `width`/`height` attributes alone (it ignores CSS `max-width`). So the email carries the PNG
 * scaled to twice the slot (sharp on a 2× screen, a fraction of the bytes) and says its size in CSS
 * pixels: half the PNG's.
 */

/** The slot in the email's header (CSS px). */
export const EMAIL_LOGO_SLOT = { width: 200, height: 40 } as const;

export interface EmailLogo {
  png: Buffer;
  /** CSS pixels: the `width` and `height` attributes of the `<img>`. */
  width: number;
  height: number;
}

const cache = new WeakMap<Logo, EmailLogo>();

export function emailLogo(logo: Logo): EmailLogo {
  const hit = cache.get(logo);
  if (hit) return hit;
  const box = { width: EMAIL_LOGO_SLOT.width * 2, height: EMAIL_LOGO_SLOT.height * 2 };
  const fitted = fitInBox(decodeRaster(logo.png, 'png'), box);
  // A logo smaller than the slot is shown at its own size (never blown up); a larger one at half its
  // drawn size, which fits the slot.
  const scale = logo.width <= box.width / 2 && logo.height <= box.height / 2 ? 1 : 2;
  const drawn: EmailLogo = {
    png: fitted.width === logo.width && fitted.height === logo.height ? logo.png : encodePng(fitted),
    width: Math.max(1, Math.round(fitted.width / scale)),
    height: Math.max(1, Math.round(fitted.height / scale)),
  };
  cache.set(logo, drawn);
  return drawn;
}
