/**
 * "Did you mean …?" for misspelt keys and time zones: a misspelling one or two letters off is the
 * most common config mistake, and naming the intended word saves a trip to the docs.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 4));
  let best: string | undefined;
  let bestDistance = limit + 1;
  const lower = word.toLowerCase();
  // `timeout` for `timeout_seconds`, `logging` for `log`: a shortened or lengthened name.
  const related = candidates.find((candidate) => {
    const other = candidate.toLowerCase();
    return Math.min(other.length, lower.length) >= 3 && (other.startsWith(lower) || lower.startsWith(other));
  });
  if (related !== undefined) return related;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance; the inputs are config keys and zone names, so O(n·m) is nothing. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
