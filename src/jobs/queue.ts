// The durable job queue: pg-boss 10 on the service's own PostgreSQL, in its own schema
// (`pgboss`, created and migrated by pg-boss itself at start). An export is one job whose id is
// the export's id. A job interrupted by a crash stays "active" until EXPORT_JOB_TIMEOUT_SECONDS,
// then pg-boss's maintenance fails it and, while attempts remain, queues it again; after the
// last attempt it goes to the dead-letter queue, whose handler records the failure.
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Config } from '../config.js';

export const QUEUE_SCHEMA = 'pgboss';
export const EXPORT_QUEUE = 'export';
export const EXPORT_DEAD_LETTER_QUEUE = 'export-dead-letter';

export interface ExportJobData {
  exportId: string;
}

export interface ExportQueue {
  boss: PgBoss;
  /** Queues the build of an export (a second send for the same export is a no-op). */
  enqueue(exportId: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Creates pg-boss's schema unless it exists. pg-boss does this itself at start; doing it ahead
 * lets a template database carry it (test/global-setup.ts), so copies of it start fast.
 */
export async function installQueueSchema(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ exists: string | null }>(`SELECT to_regclass('${QUEUE_SCHEMA}.version') AS exists`);
    if (!rows[0]?.exists) await client.query(PgBoss.getConstructionPlans(QUEUE_SCHEMA));
  } finally {
    await client.end();
  }
}

export async function startExportQueue(
  databaseUrl: string,
  config: Config['exports'],
  onError: (error: Error) => void,
): Promise<ExportQueue> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: QUEUE_SCHEMA,
    max: config.concurrency + 2,
    application_name: 'pcs-queue',
    schedule: false,
    maintenanceIntervalSeconds: config.maintenanceIntervalSeconds,
  });
  boss.on('error', onError);
  await boss.start();
  const policy = {
    name: EXPORT_QUEUE,
    retryLimit: config.maxAttempts - 1,
    retryDelay: config.retryDelaySeconds,
    retryBackoff: config.retryDelaySeconds > 0,
    expireInSeconds: config.jobTimeoutSeconds,
    deadLetter: EXPORT_DEAD_LETTER_QUEUE,
  };
  await boss.createQueue(EXPORT_DEAD_LETTER_QUEUE);
  // createQueue keeps an existing queue's options; updateQueue applies today's configuration.
  await boss.createQueue(EXPORT_QUEUE, policy);
  await boss.updateQueue(EXPORT_QUEUE, policy);

  return {
    boss,
    async enqueue(exportId) {
      await boss.send(EXPORT_QUEUE, { exportId } satisfies ExportJobData, { id: exportId });
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
