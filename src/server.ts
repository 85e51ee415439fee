// Starts the service: database (embedded unless DATABASE_URL), migrations, then the HTTP server
// and, with HEALTH_SOCKET, the container probe's socket. Everything it says is a structured
// (pino) log line — except a configuration it refuses, said in plain words before a logger
// exists. SIGINT/SIGTERM close it cleanly: in-flight requests finish, new ones are refused, the
// embedded PostgreSQL is stopped — or it exits 1 after SHUTDOWN_TIMEOUT_SECONDS.
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { createDatabase } from './db/client.js';
import { EMBEDDED_DATABASE, ensureDatabase, startEmbeddedPostgres } from './db/embedded.js';
import { applyMigrations } from './db/migrate.js';
import { makePrivateDirectory } from './lib/private-files.js';
import { exitOnSignals } from './lib/shutdown.js';
import { listenHealthSocket } from './modules/health/socket.js';
import { createLogger } from './plugins/logging.js';

let log: Logger | undefined;
let stopEmbedded: (() => Promise<void>) | undefined;

/** Start-up failed: say why, and do not leave the embedded PostgreSQL running behind us. */
async function abort(error: unknown): Promise<never> {
  const message = error instanceof Error ? error.message : String(error);
  if (log) log.fatal({ err: error }, `could not start: ${message}`);
  else process.stderr.write(`Could not start: ${message}\n`);
  await stopEmbedded?.().catch(() => {});
  process.exit(1);
}

const config = await (async () => loadConfig())().catch(abort);
log = createLogger(config.logLevel);

// Until the server is up, a signal ends the start-up, stopping the embedded PostgreSQL on the way
// out (its own process group: the terminal's Ctrl-C does not reach it). Replaced once up.
const stopStarting = (signal: NodeJS.Signals) => void abort(new Error(`${signal} received while starting`));
process.once('SIGINT', stopStarting).once('SIGTERM', stopStarting);

let databaseUrl = config.database.url;
if (!databaseUrl) {
  // Stopped by the signal handlers below, after the app; a terminal's Ctrl-C does not reach it.
  const embedded = await startEmbeddedPostgres({ directory: config.dataDir, port: config.database.embeddedPort, ownProcessGroup: true }).catch(abort);
  stopEmbedded = embedded.stop;
  await ensureDatabase(embedded.serverUrl, EMBEDDED_DATABASE).catch(abort);
  databaseUrl = embedded.databaseUrl(EMBEDDED_DATABASE);
  log.info({ port: config.database.embeddedPort, dataDir: config.dataDir }, 'embedded PostgreSQL started');
} else {
  makePrivateDirectory(config.dataDir);
}

const applied = await applyMigrations(databaseUrl).catch(abort);
if (applied.length) log.info({ migrations: applied }, 'migrations applied');

const db = createDatabase(databaseUrl, config.database.poolSize, log);
const app = await buildApp(config, { db, databaseUrl, logger: log }).catch(abort);

let closeHealthSocket: (() => Promise<void>) | undefined;
process.off('SIGINT', stopStarting).off('SIGTERM', stopStarting);
exitOnSignals(log, config.operations.shutdownTimeoutSeconds, async () => {
  await app.close();
  await closeHealthSocket?.();
  await db.$disconnect();
  await stopEmbedded?.();
});

await app.listen({ host: config.host, port: config.port }).catch(abort);
if (config.operations.healthSocket) {
  closeHealthSocket = await listenHealthSocket(config.operations.healthSocket, (request, response) => app.routing(request, response)).catch(abort);
}
log.info(
  { api: `${config.publicUrl}/api`, docs: `${config.publicUrl}/api/docs`, openapi: `${config.publicUrl}/api/openapi.json`, metrics: `${config.publicUrl}/metrics` },
  `serving ${config.publicUrl}/api (docs: ${config.publicUrl}/api/docs)`,
);
