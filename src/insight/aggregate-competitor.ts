/**
 * Whether a share-of-voice entry is the API's aggregate of the remaining competitors ("Other
 * competitors (7)"; the spec warns that `shares` may hold one) rather than a competitor: it cannot
 * overtake the brand or be overtaken, in an alert or in the story.
 */
export function isAggregateCompetitor(name: string): boolean {
  return /^other competitors/i.test(name.trim());
}
