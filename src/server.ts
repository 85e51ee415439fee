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
  await ensureDatabase(embedded.serverUrl, EMBEDDED_DATABASE);
  databaseUrl = embedded.databaseUrl(EMBEDDED_DATABASE);
  stopEmbedded = embedded.stop;
  log(`Embedded PostgreSQL on port ${config.database.embeddedPort}, data in ${path.join(config.dataDir, 'postgres')}`);
}

const applied = await applyMigrations(databaseUrl);
if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);

const db = createDatabase(databaseUrl, config.database.poolSize);
const app = await buildApp(config, { db, databaseUrl });

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

try {
  await app.listen({ host: config.host, port: config.port });
} catch (error) {
  app.log.error({ err: error }, 'could not start');
  await stopEmbedded?.();
  process.exit(1);
}
log(`API:  ${config.publicUrl}/api   (health: ${config.publicUrl}/api/health)`);
log(`Docs: ${config.publicUrl}/api/docs   OpenAPI: ${config.publicUrl}/api/openapi.json`);
