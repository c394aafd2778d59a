import {
  BinaryOperationNode,
  Kysely,
  type KyselyPlugin,
  OperationNodeTransformer,
  OperatorNode,
  PostgresDialect,
  PrimitiveValueListNode,
  sql,
  ValueNode,
} from 'kysely';
import pg from 'pg';
import { AppError } from '../errors.ts';
import { migrations } from './migrations/index.ts';
import { type Db, runMigrations, useDataDir } from './open.ts';
import type { Database } from './schema.ts';

/**
 * pg gives int8 (bigint columns, count(*), sums) and numeric (sums of bigints, averages) as
 * strings, to spare precision past 2^53. Epoch milliseconds, ids and counts stay far below, so they
 * come back as numbers, as SQLite gives them.
 */
const AS_NUMBERS = new Set<number>([pg.types.builtins.INT8, pg.types.builtins.NUMERIC]);
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    AS_NUMBERS.has(oid) ? Number : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * `x in ()` is false and `x not in ()` true to SQLite, but a syntax error to PostgreSQL: Kysely
 * writes an empty list as it is given, so each becomes the comparison that says the same.
 */
class EmptyLists extends OperationNodeTransformer {
  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const { operator, rightOperand } = node;
    const op = OperatorNode.is(operator) ? operator.operator : undefined;
    if ((op === 'in' || op === 'not in') && PrimitiveValueListNode.is(rightOperand) && rightOperand.values.length === 0) {
      return BinaryOperationNode.create(ValueNode.createImmediate(1), OperatorNode.create(op === 'in' ? '<>' : '='), ValueNode.createImmediate(1));
    }
    return super.transformBinaryOperation(node);
  }
}

const emptyLists = new EmptyLists();
const emptyListsPlugin: KyselyPlugin = {
  transformQuery: ({ node }) => emptyLists.transformNode(node),
  transformResult: async ({ result }) => result,
};

/**
 * Opens the PostgreSQL database at `url` (postgres://user:password@host:port/name) and brings its
 * schema up to date with the migrations SQLite runs. A database holding tables of something else,
 * or migrated by a newer Statusdesk, is refused before anything is written to it. `dataDir` holds
 * the service's other files, as it does beside a SQLite database.
 */
export async function openPostgres(url: string, dataDir: string): Promise<Db> {
  const where = describePostgres(url);
  const pool = new pg.Pool({ connectionString: url, types });
  // A connection lost while idle leaves the pool, which opens another for the next query.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [emptyListsPlugin] });
  try {
    useDataDir(db, dataDir);
    await checkDatabase(db, where);
    // On PostgreSQL the migrator holds a lock in the database and runs every pending migration in
    // one transaction: two processes starting together take turns, and a failure changes nothing.
    await runMigrations(db);
  } catch (error) {
    await db.destroy();
    if (error instanceof AppError) throw error;
    throw new AppError('PRECONDITION_FAILED', `cannot open ${where}: ${(error as Error).message}`);
  }
  return db;
}

/** The database a URL names, for messages and logs: its password is never shown. */
export function describePostgres(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('VALIDATION', 'the database URL is not a URL: expected postgres://user:password@host:port/name');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new AppError('VALIDATION', `the database URL must start with postgres://, not ${parsed.protocol}//`);
  }
  return `PostgreSQL database ${decodeURIComponent(parsed.pathname.slice(1)) || '(default)'} at ${parsed.host}`;
}

/**
 * Refuses a server without ICU (the overview folds case with its `und-x-icu` collation, as
 * JavaScript folds it), a database whose tables are not ours, or one a newer version has migrated.
 */
async function checkDatabase(db: Db, where: string): Promise<void> {
  const { rows: icu } = await sql<{ found: number }>`select 1 as found from pg_collation where collname = 'und-x-icu'`.execute(db);
  if (icu.length === 0) {
    throw new AppError(
      'PRECONDITION_FAILED',
      `the ${where} runs on a PostgreSQL built without ICU (no collation "und-x-icu"); Statusdesk needs one built with ICU, as the distributions' packages are`,
    );
  }
  const { rows: tables } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db);
  if (tables.length === 0) return;
  if (!tables.some((t) => t.name === 'kysely_migration')) {
    throw new AppError('PRECONDITION_FAILED', `the ${where} holds tables that are not Statusdesk's; refusing to touch it`);
  }
  const { rows: applied } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  const unknown = applied.filter((m) => !(m.name in migrations));
  if (unknown.length > 0) {
    throw new AppError(
      'PRECONDITION_FAILED',
      `the ${where} was migrated by a newer Statusdesk (${unknown.map((m) => m.name).join(', ')}); refusing to write to it: upgrade Statusdesk`,
    );
  }
}
