/**
 * Microsoft documents a 28 KB limit for a message posted through a Teams incoming webhook ("the message
 * size limit is 28 KB; when the size exceeds 28 KB, you receive an error"). Operators report 413s from
 * ~20 KB on the legacy connector (the body is measured after conversion), and a Workflows webhook
 * answers 202 before the flow posts, so an oversized card there fails where nobody sees it. reportd
 * therefore keeps the whole request body within this budget, in UTF-8 bytes.
 */
export const TEAMS_CARD_BUDGET_BYTES = 20_000;

/** Bytes of a request body as sent (UTF-8). */
export const bodyBytes = (message: unknown) => Buffer.byteLength(JSON.stringify(message), 'utf8');

/**
 * The card body that fits the budget: `head`, then as many `groups` (one per set or firing, in the
 * order given) as fit with the `tail`, then a `more(n)` block saying how many were left out. Groups are
 * never cut in half, so every set shown is shown whole. `wrap` builds the full message from a body.
 */
export function fitCard(
  parts: { head: unknown[]; groups: unknown[][]; tail: unknown[]; more: (left: number) => unknown },
  wrap: (body: unknown[]) => unknown,
  budget = TEAMS_CARD_BUDGET_BYTES,
): { message: unknown; shown: number; left: number } {
  const { head, groups, tail, more } = parts;
  const full = wrap([...head, ...groups.flat(), ...tail]);
  if (bodyBytes(full) <= budget) return { message: full, shown: groups.length, left: 0 };
  // Grow the shown prefix while the message, with its "and N more" line, stays within the budget. Each
  // group's size is measured once; the fixed parts are measured with the largest "more" line.
  const fixed = bodyBytes(wrap([...head, more(groups.length), ...tail]));
  let size = fixed;
  let shown = 0;
  for (const group of groups) {
    const extra = group.reduce<number>((sum, block) => sum + bodyBytes(block) + 1, 0);
    if (size + extra > budget) break;
    size += extra;
    shown += 1;
  }
  const left = groups.length - shown;
  const message = wrap([...head, ...groups.slice(0, shown).flat(), more(left), ...tail]);
  return { message, shown, left };
}
