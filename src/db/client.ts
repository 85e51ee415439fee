import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { Logger } from 'pino';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { createLogger } from '../plugins/logging.js';

/**
 * Prisma, plus the pg.Pool its adapter runs on: the games module's hot read queries use the
 * pool directly (src/modules/games/read-queries.ts), so both share one set of connections.
 */
export type Database = PrismaClient & { readonly pool: pg.Pool };
export { Prisma };

/** The error as a log line needs it: pg attaches its whole client (connection state, type parsers) to it. */
function withoutClient(error: Error): Record<string, unknown> {
  const { client: _client, ...fields } = error as Error & { client?: unknown };
  return { ...fields, type: error.name, message: error.message, stack: error.stack };
}

/** `log`: where an idle connection's failure is reported (the process's logger; a warn-level one by default). */
export function createDatabase(url: string, poolSize: number, log: Pick<Logger, 'warn'> = createLogger('warn')): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle connection that fails (PostgreSQL restarted, network cut) emits 'error' on the
  // pool; unheard, that would crash the process. The pool replaces the connection by itself.
  pool.on('error', (error) => log.warn({ err: withoutClient(error) }, 'PostgreSQL pool: an idle connection failed'));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  return Object.assign(prisma, { pool });
}
