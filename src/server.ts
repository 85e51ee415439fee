// Starts the service: database (embedded unless DATABASE_URL), migrations, then the HTTP server.
// SIGINT/SIGTERM close it cleanly: in-flight requests finish, new ones are refused, the
// embedded PostgreSQL is stopped.
import path from 'node:path';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { createDatabase } from './db/client.js';
import { EMBEDDED_DATABASE, ensureDatabase, startEmbeddedPostgres } from './db/embedded.js';
import { applyMigrations } from './db/migrate.js';

const config = loadConfig();
const log = (message: string) => process.stdout.write(`${message}\n`);

let databaseUrl = config.database.url;
let stopEmbedded: (() => Promise<void>) | undefined;
if (!databaseUrl) {
  const embedded = await startEmbeddedPostgres({
    dataDir: path.join(config.dataDir, 'postgres'),
    port: config.database.embeddedPort,
  });
  stopEmbedded = embedded.stop;
  await ensureDatabase(embedded.serverUrl, EMBEDDED_DATABASE).catch(abort);
  databaseUrl = embedded.databaseUrl(EMBEDDED_DATABASE);
  log(`Embedded PostgreSQL on port ${config.database.embeddedPort}, data in ${path.join(config.dataDir, 'postgres')}`);
}

/** Start-up failed: say why, and do not leave the embedded PostgreSQL running behind us. */
async function abort(error: unknown): Promise<never> {
  process.stderr.write(`Could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  await stopEmbedded?.().catch(() => {});
  process.exit(1);
}

const applied = await applyMigrations(databaseUrl).catch(abort);
if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);

const db = createDatabase(databaseUrl, config.database.poolSize);
const app = await buildApp(config, { db, databaseUrl }).catch(abort);

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down');
  try {
    await app.close();
    await db.$disconnect();
    await stopEmbedded?.();
    process.exit(0);
  } catch (error) {
    app.log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

await app.listen({ host: config.host, port: config.port }).catch(abort);
log(`API:  ${config.publicUrl}/api   (health: ${config.publicUrl}/api/health)`);
log(`Docs: ${config.publicUrl}/api/docs   OpenAPI: ${config.publicUrl}/api/openapi.json`);
