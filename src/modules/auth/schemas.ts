import { z } from 'zod';
import { plainText, timestamp } from '../../lib/schemas.js';

export const email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email())
  .transform((e) => e.toLowerCase())
  .describe('E-mail address, compared case-insensitively');
const password = z.string().min(8).max(256);

export const registerBody = z.strictObject({ email, password, name: plainText(200) });
export const loginBody = z.strictObject({ email: z.string().max(254), password: z.string().max(256) });

export const userSchema = z.object({ id: z.string(), email: z.string(), name: z.string(), createdAt: timestamp });
export const roleSchema = z.enum(['owner', 'admin', 'member']);

export const registerResponse = z.object({
  user: userSchema,
  organization: z.object({ id: z.string(), name: z.string(), role: roleSchema, createdAt: timestamp }),
});
export const sessionResponse = z.object({ user: userSchema, expiresAt: timestamp });
export const meResponse = z.object({
  user: userSchema,
  organizations: z.array(z.object({ id: z.string(), name: z.string(), role: roleSchema })),
});
