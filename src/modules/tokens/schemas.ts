import { z } from 'zod';
import { listQuery } from '../../lib/pagination.js';
import { optionalOrganizationId, organizationFilter, plainText, timestamp } from '../../lib/schemas.js';
import { SCOPES } from '../../plugins/scopes.js';

export const scopeSchema = z.enum(SCOPES);

export const createTokenBody = z.strictObject({
  name: plainText(200),
  organizationId: optionalOrganizationId,
  scopes: z
    .array(scopeSchema)
    .min(1)
    .max(SCOPES.length)
    .refine((s) => new Set(s).size === s.length, 'must not repeat a scope')
    .describe('Permission scopes; X:write implies X:read'),
  expiresAt: z.iso
    .datetime({ offset: true })
    .nullable()
    .optional()
    .describe('When the token stops working (ISO-8601); never when omitted or null. A token made by a token expires no later than its parent')
    .refine((v) => v == null || Date.parse(v) > Date.now(), 'must be in the future'),
});

export const tokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe('First characters of the secret, to tell tokens apart'),
  scopes: z.array(z.string()),
  organizationId: z.string(),
  createdAt: timestamp,
  expiresAt: timestamp.nullable(),
  lastUsedAt: timestamp.nullable(),
  revokedAt: timestamp.nullable(),
});

export const listedTokenSchema = tokenSchema.extend({
  createdBy: z.object({ id: z.string(), email: z.string() }).nullable().describe('The user the token acts for (null once that user is deleted)'),
  parentTokenId: z.string().nullable().describe('The token that created this one; null when a session did'),
});

export const createdTokenSchema = tokenSchema.omit({ revokedAt: true }).extend({ token: z.string().describe('The secret: shown once, store it now') });

export const listTokensQuery = listQuery(['createdAt', 'name']).extend({ organizationId: organizationFilter });
