// Events (CONTRACT §12): recorded inside the transaction that changes what they report, as one
// delivery per subscribed webhook plus its queued job. So an event exists exactly when its
// change committed: a crash right after the commit loses nothing, and a rolled-back change
// sends nothing. The message is stored once (its body never changes between attempts).
import { randomUUID } from 'node:crypto';
import { type ExportQueue, type Transaction, WEBHOOK_QUEUE } from '../../jobs/queue.js';
import { batchSchema } from '../export-batches/schemas.js';
import { exportSchema } from '../exports/schemas.js';

/** Each event with the response schema of the GET whose body its data is. */
const EVENT_DATA = {
  'export.succeeded': exportSchema,
  'export.failed': exportSchema,
  'export_batch.finished': batchSchema,
} as const;

export type WebhookEvent = keyof typeof EVENT_DATA;
export const WEBHOOK_EVENTS = Object.keys(EVENT_DATA) as [WebhookEvent, ...WebhookEvent[]];

/**
 * Queues `type` with `data` for every webhook of the organization subscribed to it. Returns a
 * function to call once `tx` has committed: it wakes this process's delivery workers, so a
 * delivery does not wait for their next poll.
 */
export async function recordEvent(tx: Transaction, queue: ExportQueue, event: { organizationId: string; type: WebhookEvent; data: unknown }): Promise<() => void> {
  const webhooks = await tx.webhook.findMany({ where: { organizationId: event.organizationId, events: { has: event.type } }, select: { id: true } });
  if (webhooks.length === 0) return () => {};
  // Parsed by the GET's schema, the data has exactly the properties GET writes.
  const data = EVENT_DATA[event.type].parse(event.data);
  const payload = JSON.stringify({ type: event.type, timestamp: new Date().toISOString(), data });
  const deliveries = webhooks.map((w) => ({ id: randomUUID(), webhookId: w.id, event: event.type, payload }));
  await tx.webhookDelivery.createMany({ data: deliveries });
  await queue.enqueueDeliveries(
    tx,
    deliveries.map((d) => d.id),
  );
  return () => queue.wake(WEBHOOK_QUEUE);
}
