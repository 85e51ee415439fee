// Webhook deliveries (CONTRACT §12): each is a job on the durable queue (src/jobs/queue.ts) whose
// id is the delivery's. An attempt re-checks the target's address (src/modules/webhooks/
// target.ts), signs the stored message and POSTs it; a failed attempt is thrown back to pg-boss,
// which retries it with backoff until WEBHOOK_MAX_ATTEMPTS. A worker that dies mid-attempt
// leaves the job active until it expires, and pg-boss then retries it; a job whose last attempt
// expired lands in the dead-letter queue, which records the failure. Every outcome is written by
// recordAttempt, the one place that counts deliveries (webhook_deliveries_total).
import type { FastifyBaseLogger } from 'fastify';
import type PgBoss from 'pg-boss';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Metrics } from '../lib/metrics.js';
import { type AttemptResult, postMessage, signedHeaders } from '../modules/webhooks/delivery.js';
import { type ResolveHost, resolveTarget, TargetRefused } from '../modules/webhooks/target.js';
import { type ExportQueue, WEBHOOK_DEAD_LETTER_QUEUE, WEBHOOK_QUEUE, type WebhookJobData } from './queue.js';

export interface WebhookWorkerDeps {
  db: Database;
  queue: ExportQueue;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  resolveHost: ResolveHost;
  config: Config['webhooks'];
  metrics: Pick<Metrics, 'webhookDeliveries'>;
}

/** Deliveries one process attempts at once: receivers may take up to the timeout each. */
const DELIVERY_CONCURRENCY = 4;
const MAX_ERROR_LENGTH = 500;

/** Records the outcome of one attempt: the delivery's log and, on the last attempt, its end. */
async function recordAttempt(deps: WebhookWorkerDeps, deliveryId: string, result: AttemptResult, isLast: boolean): Promise<void> {
  const status = result.ok ? 'succeeded' : isLast ? 'failed' : 'pending';
  const [recorded] = await deps.db.webhookDelivery.updateManyAndReturn({
    where: { id: deliveryId, status: 'pending' },
    data: {
      status,
      attempts: { increment: 1 },
      lastStatusCode: result.statusCode,
      lastError: result.error?.slice(0, MAX_ERROR_LENGTH) ?? null,
      ...(result.ok ? { deliveredAt: new Date() } : {}),
    },
    select: { event: true },
  });
  if (recorded) deps.metrics.webhookDeliveries.inc({ event: recorded.event, outcome: result.ok ? 'delivered' : 'failed' });
  deps.log.info({ deliveryId, status, statusCode: result.statusCode, error: result.error }, 'webhook delivery attempt');
}

/** One attempt; throws when it failed and another attempt remains. */
export async function attemptDelivery(deps: WebhookWorkerDeps, deliveryId: string, attempt: { isLast: boolean }): Promise<void> {
  const delivery = await deps.db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { webhook: true } });
  // Delivered already (a repeated job), or its webhook was deleted.
  if (!delivery || delivery.status !== 'pending') return;
  const message = { id: delivery.id, payload: delivery.payload };
  let result: AttemptResult;
  try {
    const target = await resolveTarget(delivery.webhook.url, deps.config, deps.resolveHost);
    result = await postMessage(target, signedHeaders(delivery.webhook.secret, message, new Date()), message.payload, deps.config.timeoutSeconds * 1000);
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    result = { ok: false, statusCode: null, error: `Not sent: the URL ${error.message}` };
  }
  await recordAttempt(deps, delivery.id, result, attempt.isLast);
  if (!result.ok && !attempt.isLast) throw new Error(result.error ?? 'delivery failed');
}

export async function startWebhookWorker(deps: WebhookWorkerDeps): Promise<void> {
  const options = { batchSize: 1, includeMetadata: true as const, pollingIntervalSeconds: deps.config.pollIntervalSeconds };
  for (let i = 0; i < DELIVERY_CONCURRENCY; i++) {
    await deps.queue.work<WebhookJobData>(WEBHOOK_QUEUE, options, async ([job]: PgBoss.JobWithMetadata<WebhookJobData>[]) => {
      if (!job) return;
      await attemptDelivery(deps, job.data.deliveryId, { isLast: job.retryCount >= job.retryLimit });
    });
  }
  // The last attempt never came back (its worker died or hung).
  await deps.queue.work<WebhookJobData>(WEBHOOK_DEAD_LETTER_QUEUE, options, async ([job]) => {
    if (!job) return;
    await recordAttempt(deps, job.data.deliveryId, { ok: false, statusCode: null, error: 'The attempt did not finish: its worker stopped' }, true);
  });
}
