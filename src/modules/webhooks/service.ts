import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { ValidationError } from '../../errors.js';
import type { Webhook, WebhookDelivery, WebhookDeliveryStatus } from '../../generated/prisma/client.js';
import { envelope, type PageRequest, pageArgs } from '../../lib/pagination.js';
import { iso, isoOrNull } from '../../lib/schemas.js';
import type { Caller } from '../../plugins/auth.js';
import { assertId, assertVisible, hasRole, MANAGER_ROLES, requireRole, resolveOrganizationId, visibleOrganizationIds } from '../organizations/access.js';
import type { WebhookEvent } from './events.js';
import { type ResolveHost, resolveTarget, TargetRefused } from './target.js';

export const toWebhookDto = (w: Webhook) => ({
  id: w.id,
  url: w.url,
  events: w.events as WebhookEvent[],
  organizationId: w.organizationId,
  createdAt: iso(w.createdAt),
});

const toDeliveryDto = (d: WebhookDelivery) => ({
  id: d.id,
  event: d.event as WebhookEvent,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  createdAt: iso(d.createdAt),
  deliveredAt: isoOrNull(d.deliveredAt),
});

/** Standard Webhooks' secret format: whsec_ + base64 of the key (32 random bytes here). */
const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export interface WebhookServiceDeps {
  db: Database;
  config: Config['webhooks'];
  resolveHost: ResolveHost;
}

export function createWebhookService({ db, config, resolveHost }: WebhookServiceDeps) {
  /** A webhook the caller can see and manage (session: owner or admin), or 404/403. */
  async function findManaged(caller: Caller, id: string): Promise<Webhook> {
    assertId(id, 'Webhook');
    const webhook = assertVisible(caller, await db.webhook.findUnique({ where: { id } }), 'Webhook');
    requireRole(caller, webhook.organizationId, MANAGER_ROLES);
    return webhook;
  }

  return {
    async create(caller: Caller, input: { url: string; events: WebhookEvent[]; organizationId?: string }) {
      const organizationId = resolveOrganizationId(caller, input.organizationId);
      requireRole(caller, organizationId, MANAGER_ROLES);
      try {
        await resolveTarget(input.url, config, resolveHost);
      } catch (error) {
        if (!(error instanceof TargetRefused)) throw error;
        throw new ValidationError(`url ${error.message}`, [{ in: 'body', path: 'url', message: error.message }]);
      }
      const webhook = await db.webhook.create({ data: { organizationId, url: input.url, events: input.events, secret: newWebhookSecret() } });
      return { ...toWebhookDto(webhook), secret: webhook.secret };
    },

    async list(caller: Caller, query: PageRequest<'createdAt'> & { organizationId?: string }) {
      const visible = visibleOrganizationIds(caller, query.organizationId);
      if (query.organizationId !== undefined) requireRole(caller, query.organizationId, MANAGER_ROLES);
      const where = { organizationId: { in: visible.filter((organizationId) => hasRole(caller, organizationId, MANAGER_ROLES)) } };
      const [rows, total] = await Promise.all([db.webhook.findMany({ where, ...pageArgs(query) }), db.webhook.count({ where })]);
      return envelope(rows.map(toWebhookDto), total, query);
    },

    /** Deletes the subscription and its delivery log; pending retries are dropped. */
    async remove(caller: Caller, id: string) {
      const webhook = await findManaged(caller, id);
      await db.webhook.deleteMany({ where: { id: webhook.id } });
    },

    async deliveries(caller: Caller, id: string, query: PageRequest<'createdAt'> & { status?: WebhookDeliveryStatus }) {
      const webhook = await findManaged(caller, id);
      const where = { webhookId: webhook.id, ...(query.status ? { status: query.status } : {}) };
      const [rows, total] = await Promise.all([db.webhookDelivery.findMany({ where, ...pageArgs(query) }), db.webhookDelivery.count({ where })]);
      return envelope(rows.map(toDeliveryDto), total, query);
    },
  };
}
