import { z } from 'zod';
import { listQuery } from '../../lib/pagination.js';
import { plainText, timestamp } from '../../lib/schemas.js';
import { email, roleSchema } from '../auth/schemas.js';

export const organizationSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: roleSchema.nullable().describe("The caller's role; null for an API token"),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const organizationWithUsageSchema = organizationSchema.extend({
  usage: z
    .object({
      storageBytes: z.number().int().describe('Bytes of ready assets plus the declared sizes of uploads whose URL is still open'),
      quotaBytes: z.number().int().describe('ORG_STORAGE_QUOTA_BYTES: the most storageBytes may reach'),
    })
    .describe('Storage used against the quota'),
});
export const createOrganizationBody = z.strictObject({ name: plainText(200) });
export const listOrganizationsQuery = listQuery(['createdAt', 'name']);

export const memberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  createdAt: timestamp.describe('When the user joined the organization'),
});
export const addMemberBody = z.strictObject({ email, role: roleSchema });
export const changeMemberBody = z.strictObject({ role: roleSchema });
export const listMembersQuery = listQuery(['createdAt']);
export const memberParams = z.object({ id: z.string().max(200), userId: z.string().max(200) });
