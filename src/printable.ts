/**
 * Text from the API (set names, run labels) and error text from the store is untrusted: an ESC or CSI
 * sequence in it would be obeyed by the terminal (clear the screen, move the cursor, rewrite earlier
 * lines, set the window title). Every such string is passed through `printable` before the CLI prints
 * it. JSON output needs no filtering: JSON.stringify already escapes control characters.
 */

/** C0 controls, DEL and C1 controls (the 8-bit CSI U+009B among them), except tab. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
const CONTROL_BUT_NEWLINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Replaces control characters with U+FFFD, so the text shows that something was there but the
 * terminal executes nothing. `multiline` keeps `\n`, for messages meant to span lines (a config
 * error lists one problem per line); elsewhere a newline could fake an extra line of output.
 */
export function printable(text: string, options: { multiline?: boolean } = {}): string {
  return text.replace(options.multiline ? CONTROL_BUT_NEWLINE : CONTROL, '\uFFFD');
}
