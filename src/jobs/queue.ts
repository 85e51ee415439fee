// The durable job queue: pg-boss 10 on the service's own PostgreSQL, in its own schema
// (`pgboss`, created and migrated by pg-boss itself at start). Three kinds of job:
// - an export build, whose job id is the export's id. A job interrupted by a crash stays
//   "active" until EXPORT_JOB_TIMEOUT_SECONDS, then pg-boss's maintenance fails it and, while
//   attempts remain, queues it again; after the last attempt it goes to the dead-letter queue,
//   whose handler records the failure;
// - the finishing of an export batch (its ZIP), one queued and one running per batch at most
//   (policy `stately`, keyed by the batch id);
// - a webhook delivery, whose job id is the delivery's id, retried with backoff; its dead-letter
//   queue records a delivery whose last attempt never came back.
// Jobs that must exist exactly when some rows do are inserted inside the transaction that writes
// those rows (`tx` below), so they commit or roll back together: no crash between the two can
// lose one.
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Config } from '../config.js';
import type { Prisma } from '../db/client.js';
import type { QueueCount } from '../lib/metrics.js';

export const QUEUE_SCHEMA = 'pgboss';
export const EXPORT_QUEUE = 'export';
export const EXPORT_DEAD_LETTER_QUEUE = 'export-dead-letter';
export const BATCH_FINISH_QUEUE = 'export-batch-finish';
export const WEBHOOK_QUEUE = 'webhook-delivery';
export const WEBHOOK_DEAD_LETTER_QUEUE = 'webhook-delivery-dead-letter';

export interface ExportJobData {
  exportId: string;
}
export interface BatchFinishJobData {
  batchId: string;
}
export interface WebhookJobData {
  deliveryId: string;
}

/** A Prisma transaction; jobs queued with it are committed or rolled back with it. */
export type Transaction = Prisma.TransactionClient;

export interface ExportQueue {
  boss: PgBoss;
  /** Queues the build of an export (a second send for the same export is a no-op). */
  enqueue(exportId: string): Promise<void>;
  /** Queues the builds of exports inside `tx`. */
  enqueueExports(tx: Transaction, exportIds: string[]): Promise<void>;
  /** Queues a check of whether the batch is complete (and then its ZIP) inside `tx`. */
  enqueueBatchFinish(tx: Transaction, batchId: string): Promise<void>;
  /** Queues webhook deliveries inside `tx`. */
  enqueueDeliveries(tx: Transaction, deliveryIds: string[]): Promise<void>;
  /** pg-boss's work(), remembering the worker so that wake() can reach it. */
  work<T extends object>(name: string, options: PgBoss.WorkOptions & { includeMetadata: true }, handler: PgBoss.WorkWithMetadataHandler<T>): Promise<void>;
  /** Makes this process's workers of `name` look for jobs now rather than at their next poll. */
  wake(name: string): void;
  /** Resolves when pg-boss reaches its schema and the export queue exists (readiness). */
  check(): Promise<void>;
  /** Jobs of the export queue and its dead-letter queue, by state (metrics). */
  counts(): Promise<QueueCount[]>;
  stop(): Promise<void>;
}

/** Lets pg-boss write its job rows through a Prisma transaction. */
function inTransaction(tx: Transaction): PgBoss.Db {
  return {
    executeSql: async (text, values) => ({ rows: await tx.$queryRawUnsafe<unknown[]>(text, ...values) }),
  };
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

export async function startExportQueue(databaseUrl: string, config: Pick<Config, 'exports' | 'webhooks'>, onError: (error: Error) => void): Promise<ExportQueue> {
  const { exports, webhooks } = config;
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: QUEUE_SCHEMA,
    max: exports.concurrency + 4,
    application_name: 'pcs-queue',
    schedule: false,
    maintenanceIntervalSeconds: exports.maintenanceIntervalSeconds,
  });
  boss.on('error', onError);
  await boss.start();
  const policies: PgBoss.Queue[] = [
    { name: EXPORT_DEAD_LETTER_QUEUE },
    {
      name: EXPORT_QUEUE,
      retryLimit: exports.maxAttempts - 1,
      retryDelay: exports.retryDelaySeconds,
      retryBackoff: exports.retryDelaySeconds > 0,
      expireInSeconds: exports.jobTimeoutSeconds,
      deadLetter: EXPORT_DEAD_LETTER_QUEUE,
    },
    // Building a ZIP reads and writes the store only; a store outage is retried.
    {
      name: BATCH_FINISH_QUEUE,
      policy: 'stately',
      retryLimit: exports.maxAttempts - 1,
      retryDelay: exports.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: exports.jobTimeoutSeconds,
    },
    { name: WEBHOOK_DEAD_LETTER_QUEUE },
    {
      name: WEBHOOK_QUEUE,
      // pg-boss's backoff: the n-th retry waits retryDelay × 2^(n-1) × (1 + random()) seconds.
      retryLimit: webhooks.maxAttempts - 1,
      retryDelay: webhooks.retryDelaySeconds,
      retryBackoff: true,
      // An attempt takes at most the HTTP timeout; one still active well after it died with its worker.
      expireInSeconds: webhooks.timeoutSeconds + 20,
      deadLetter: WEBHOOK_DEAD_LETTER_QUEUE,
    },
  ];
  for (const policy of policies) {
    // createQueue keeps an existing queue's options; updateQueue applies today's configuration.
    await boss.createQueue(policy.name, policy);
    await boss.updateQueue(policy.name, policy);
  }

  const workers = new Map<string, string[]>();
  const insert = (tx: Transaction, jobs: PgBoss.JobInsert[]) => (jobs.length ? boss.insert(jobs, { db: inTransaction(tx) }) : Promise.resolve());

  return {
    boss,
    async enqueue(exportId) {
      await boss.send(EXPORT_QUEUE, { exportId } satisfies ExportJobData, { id: exportId });
    },
    enqueueExports: (tx, exportIds) =>
      insert(
        tx,
        exportIds.map((exportId) => ({ name: EXPORT_QUEUE, id: exportId, data: { exportId } satisfies ExportJobData })),
      ),
    async enqueueBatchFinish(tx, batchId) {
      // A finishing job of this batch that has not started yet covers this request too.
      await boss.send(BATCH_FINISH_QUEUE, { batchId } satisfies BatchFinishJobData, { singletonKey: batchId, db: inTransaction(tx) });
    },
    enqueueDeliveries: (tx, deliveryIds) =>
      insert(
        tx,
        deliveryIds.map((deliveryId) => ({ name: WEBHOOK_QUEUE, id: deliveryId, data: { deliveryId } satisfies WebhookJobData })),
      ),
    async work(name, options, handler) {
      const id = await boss.work(name, options, handler);
      workers.set(name, [...(workers.get(name) ?? []), id]);
    },
    wake(name) {
      for (const id of workers.get(name) ?? []) boss.notifyWorker(id);
    },
    async check() {
      if (!(await boss.getQueue(EXPORT_QUEUE))) throw new Error(`The queue ${EXPORT_QUEUE} does not exist`);
    },
    async counts() {
      const { rows } = await boss
        .getDb()
        .executeSql(`SELECT name AS queue, state, count(*)::int AS count FROM ${QUEUE_SCHEMA}.job WHERE name = ANY($1) GROUP BY name, state`, [
          [EXPORT_QUEUE, EXPORT_DEAD_LETTER_QUEUE],
        ]);
      return rows as QueueCount[];
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
