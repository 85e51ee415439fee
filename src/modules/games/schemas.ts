import { z } from 'zod';
import { cursorParam, listQuery } from '../../lib/pagination.js';
import { optionalOrganizationId, organizationFilter, plainText, timestamp } from '../../lib/schemas.js';

const description = z.string().max(2000).describe('Free text, up to 2000 characters');

export const gameSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  organizationId: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const createGameBody = z.strictObject({
  name: plainText(200).describe('Unique within the organization'),
  organizationId: optionalOrganizationId,
  description: description.nullable().optional(),
});

export const updateGameBody = z
  .strictObject({ name: plainText(200).optional(), description: description.nullable().optional() })
  .refine((b) => Object.keys(b).length > 0, 'give at least one of name, description');

export const listGamesQuery = listQuery(['createdAt', 'updatedAt', 'name']).extend({
  organizationId: organizationFilter,
  q: z.string().max(200).optional().describe('Only games whose name contains this text (case-insensitive)'),
  cursor: cursorParam,
});
