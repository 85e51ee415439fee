// `npm run worker`: the export worker (with batch finishing and webhook deliveries) as its own
// process, for scaling out beside the API (run the API with EXPORT_WORKER_IN_API=false to leave
// all exports to such workers). It uses the same configuration as the API; without DATABASE_URL
// it joins the embedded PostgreSQL that the API process started. It serves its health endpoints
// on HEALTH_SOCKET and, with WORKER_METRICS_PORT, /metrics over HTTP (src/jobs/worker-app.ts).
// SIGINT/SIGTERM let the running export finish first (up to SHUTDOWN_TIMEOUT_SECONDS), then
// close the browser.
import { loadConfig } from '../config.js';
import { createDatabase } from '../db/client.js';
import { EMBEDDED_DATABASE, embeddedDatabaseUrl } from '../db/embedded.js';
import { applyMigrations } from '../db/migrate.js';
import { createBrowserManager } from '../exporters/browser/manager.js';
import { createMetrics } from '../lib/metrics.js';
import { exitOnSignals } from '../lib/shutdown.js';
import { listenHealthSocket } from '../modules/health/socket.js';
import { systemResolver } from '../modules/webhooks/target.js';
import { createLogger } from '../plugins/logging.js';
import { createObjectStore } from '../storage/index.js';
import { startExportQueue } from './queue.js';
import { buildWorkerApp } from './worker-app.js';
import { startWorkers } from './workers.js';

/** Start-up failed: say why in one line, not with a stack trace. */
function abort(error: unknown): never {
  process.stderr.write(`Could not start the export worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

const config = await (async () => loadConfig())().catch(abort);
const log = createLogger(config.logLevel).child({ role: 'export-worker' });
const databaseUrl = await (async () => config.database.url ?? embeddedDatabaseUrl(config.dataDir, config.database.embeddedPort, EMBEDDED_DATABASE))().catch(abort);

await applyMigrations(databaseUrl).catch(abort);
const db = createDatabase(databaseUrl, config.exports.concurrency + 1, log);
// Connect (and load Prisma's query engine) before taking jobs, so that a job's time limit is not spent on it.
await db.$queryRaw`SELECT 1`;
const queue = await startExportQueue(databaseUrl, config, (error) => log.error({ err: error }, 'export queue error'));
const metrics = createMetrics({ pool: db.pool, onCollectError: (error, metric) => log.warn({ err: error, metric }, 'metric not collected') });
// Health and metrics first: their set-up then does not compete with the first export.
const app = await buildWorkerApp(config, { db, queue, metrics, logger: log });
await app.ready();
const { healthSocket, workerMetricsPort } = config.operations;
const closeHealthSocket = healthSocket ? await listenHealthSocket(healthSocket, (request, response) => app.routing(request, response)) : undefined;
if (workerMetricsPort) await app.listen({ host: config.host, port: workerMetricsPort });
const browser = createBrowserManager({ ...config.exports.browser, concurrency: config.exports.concurrency, log });
await startWorkers({ db, store: await createObjectStore(config), queue, log, metrics, resolveHost: systemResolver, browser }, config);

exitOnSignals(log, config.operations.shutdownTimeoutSeconds, async () => {
  await queue.stop();
  await browser.close();
  await closeHealthSocket?.();
  await app.close();
  await db.$disconnect();
});
// Logged once a signal would be handled: whoever waits for this line may stop the worker.
log.info({ concurrency: config.exports.concurrency, healthSocket, metricsPort: workerMetricsPort }, 'export worker started');
