/**
 * Which engine the store suites run against: `postgres` in the `postgres` vitest project (its
 * config sets REPORTD_TEST_ENGINE), `sqlite` everywhere else. The store factory for tests builds on this.
 */
export type TestEngine = 'sqlite' | 'postgres';

export function testEngine(env: NodeJS.ProcessEnv = process.env): TestEngine {
  const value = env.REPORTD_TEST_ENGINE;
  if (value === undefined || value === '' || value === 'sqlite') return 'sqlite';
  if (value === 'postgres') return 'postgres';
  throw new Error(`REPORTD_TEST_ENGINE=${value} is not an engine: use sqlite or postgres`);
}
