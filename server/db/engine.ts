import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

/** Whether `db` talks to PostgreSQL; otherwise it is SQLite, the embedded default. */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

type Column = (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

export interface SchemaWords {
  /** SQLite's integer has 64 bits (epoch milliseconds, ids up to 15 digits), PostgreSQL's integer 32: its bigint, there. */
  integer: RawBuilder<unknown>;
  /** A float of 8 bytes: PostgreSQL's real has 4. */
  double: RawBuilder<unknown>;
  blob: RawBuilder<unknown>;
  /** An id the database gives and never gives again, even after the row is deleted. */
  serialId: Column;
  /** An id the database gives (SQLite's rowid). */
  rowId: Column;
  /** Ends the definition of a table keyed by its primary key alone: SQLite then stores no rowid. */
  withoutRowid: RawBuilder<unknown>;
  /** The smaller of two values (SQLite's min takes two or more, PostgreSQL's least). */
  least: RawBuilder<unknown>;
}

/**
 * The words of a schema that differ between the engines, for migrations. SQLite's are the words
 * its migrations always used, so its schema stays as it was. Pure and stable: migrations import it.
 */
export function schemaWords(db: Kysely<any>): SchemaWords {
  const pg = isPostgres(db);
  return {
    integer: sql.raw(pg ? 'bigint' : 'integer'),
    double: sql.raw(pg ? 'double precision' : 'real'),
    blob: sql.raw(pg ? 'bytea' : 'blob'),
    serialId: pg ? (c) => c.primaryKey().generatedByDefaultAsIdentity() : (c) => c.primaryKey().autoIncrement(),
    rowId: pg ? (c) => c.primaryKey().generatedByDefaultAsIdentity() : (c) => c.primaryKey(),
    withoutRowid: sql.raw(pg ? '' : ' without rowid'),
    least: sql.raw(pg ? 'least' : 'min'),
  };
}
