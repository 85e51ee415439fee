import { z } from 'zod';
import { listQuery } from '../../lib/pagination.js';
import { optionalOrganizationId, organizationFilter, timestamp } from '../../lib/schemas.js';
import { WEBHOOK_EVENTS } from './events.js';

const event = z.enum(WEBHOOK_EVENTS, { error: () => `each event must be one of: ${WEBHOOK_EVENTS.join(', ')}` });

export const createWebhookBody = z.strictObject({
  url: z.string().trim().min(1).max(2048).describe('http(s) URL of the receiver (https in production); private addresses are refused'),
  events: z
    .array(event)
    .min(1)
    .max(WEBHOOK_EVENTS.length)
    .refine((events) => new Set(events).size === events.length, 'must not name an event twice'),
  organizationId: optionalOrganizationId,
});

export const createWebhookDescription = `Subscribes a URL to events of the organization. Each event is POSTed as
\`{ type, timestamp, data }\` (data: the export or batch as GET returns it), signed per the Standard
Webhooks spec with the \`secret\` returned here — and only here: \`webhook-id\`, \`webhook-timestamp\`,
\`webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">\`. A non-2xx answer, a
redirect or no answer within 10 s is retried with backoff (8 attempts in all). The URL must not be
(or resolve to) a private, link-local, multicast or reserved address. Needs the owner or admin role.`;

export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(event),
  organizationId: z.string(),
  createdAt: timestamp,
});

export const webhookCreatedSchema = webhookSchema.extend({
  secret: z.string().describe('whsec_ + base64 of 32 random bytes: the signing key. Shown only in this response'),
});

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const deliverySchema = z.object({
  id: z.string().describe('Also the webhook-id header, the same on every attempt'),
  event,
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable().describe("The receiver's answer to the last attempt"),
  lastError: z.string().nullable().describe('Why the last attempt failed'),
  createdAt: timestamp,
  deliveredAt: timestamp.nullable(),
});

export const listWebhooksQuery = listQuery(['createdAt']).extend({ organizationId: organizationFilter });
export const listDeliveriesQuery = listQuery(['createdAt']).extend({ status: z.enum(DELIVERY_STATUSES).optional() });
