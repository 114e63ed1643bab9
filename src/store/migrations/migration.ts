/**
 * Migrations are TypeScript modules (not .sql files) so the build needs no copy step and they ship
 * inside dist/. Each exports `{ version, name, sql }`; versions only ever grow, and a released
 * migration is never edited: add a new one instead.
 */
export interface Migration {
  version: number;
  name: string;
  /** SQLite's dialect; PostgreSQL runs it through `postgresDdl` unless `postgres` is given. */
  sql: string;
  postgres?: string;
}
