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

/** `log`: where an idle connection's failure is reported (the process's logger; a warn-level one by default). */
export function createDatabase(url: string, poolSize: number, log: Pick<Logger, 'warn'> = createLogger('warn')): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle connection that fails (PostgreSQL restarted, network cut) emits 'error' on the
  // pool; unheard, that would crash the process. The pool replaces the connection by itself.
  pool.on('error', (error) => log.warn({ err: error }, 'PostgreSQL pool: an idle connection failed'));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  return Object.assign(prisma, { pool });
}
