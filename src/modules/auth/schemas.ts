import { dictionary } from '@zxcvbn-ts/language-common';
import { z } from 'zod';
import { plainText, timestamp } from '../../lib/schemas.js';

export const email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email())
  .transform((e) => e.toLowerCase())
  .describe('E-mail address, compared case-insensitively');
/** zxcvbn's list of common passwords (~49,000, from breaches), compared case-insensitively. */
const COMMON_PASSWORDS = new Set(dictionary['passwords-common']);

const password = z
  .string()
  .min(8)
  .max(256)
  .refine((value) => !COMMON_PASSWORDS.has(value.toLowerCase()), 'is a common password, easy to guess: choose another')
  .describe('8..256 characters, not a common password');

export const registerBody = z.strictObject({ email, password, name: plainText(200) });
export const loginBody = z.strictObject({ email: z.string().max(254), password: z.string().max(256) });
export const changePasswordBody = z.strictObject({ currentPassword: z.string().max(256), newPassword: password });

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
