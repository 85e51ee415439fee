// `npm run worker`: an export worker as its own process, for scaling out beside the API (run the
// API with EXPORT_WORKER_IN_API=false to leave all exports to such workers). It uses the same
// configuration as the API; without DATABASE_URL it joins the embedded PostgreSQL that the API
// process started. SIGINT/SIGTERM let the running export finish first.
import pino from 'pino';
import { loadConfig } from '../config.js';
import { createDatabase } from '../db/client.js';
import { EMBEDDED_DATABASE, embeddedDatabaseUrl } from '../db/embedded.js';
import { applyMigrations } from '../db/migrate.js';
import { logRedaction } from '../plugins/logging.js';
import { createObjectStore } from '../storage/index.js';
import { startExportWorker } from './export-worker.js';
import { startExportQueue } from './queue.js';

const config = loadConfig();
const log = pino({ level: config.logLevel, redact: logRedaction, base: { role: 'export-worker' } });
const databaseUrl = config.database.url ?? embeddedDatabaseUrl(config.database.embeddedPort, EMBEDDED_DATABASE);

await applyMigrations(databaseUrl);
const db = createDatabase(databaseUrl, config.exports.concurrency + 1);
const queue = await startExportQueue(databaseUrl, config.exports, (error) => log.error({ err: error }, 'export queue error'));
await startExportWorker(queue, { db, store: createObjectStore(config), log }, config.exports);
log.info({ concurrency: config.exports.concurrency }, 'export worker started');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'export worker stopping');
  await queue.stop();
  await db.$disconnect();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
