/**
 * Text from the API (set names, run labels) and error text from the store is untrusted: an ESC or CSI
 * sequence in it would be obeyed by the terminal (clear the screen, move the cursor, rewrite earlier
 * lines, set the window title). Every such string is passed through `printable` before the CLI prints
 * it. JSON output needs no filtering: JSON.stringify already escapes control characters.
 */

/**
 * C0 controls, DEL and C1 controls (the 8-bit CSI U+009B among them), except tab; and the bidi
 * embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which make a terminal or a mail
 * client show text in another order than it is (`invoice\u202Efdp.exe` reads as `invoiceexe.pdf`).
 */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_BUT_NEWLINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Replaces control characters with U+FFFD, so the text shows that something was there but the
 * terminal executes nothing. `multiline` keeps `\n`, for messages meant to span lines (a config
 * error lists one problem per line); elsewhere a newline could fake an extra line of output.
 */
export function printable(text: string, options: { multiline?: boolean } = {}): string {
  return text.replace(options.multiline ? CONTROL_BUT_NEWLINE : CONTROL, '\uFFFD');
}

/**
 * A mail header value (the subject) from API text: no control character at all (a NUL or a line break
 * would end or split the header) and no bidi override; runs of them become one space.
 */
export function headerText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ');
}
