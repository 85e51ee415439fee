// Small schema pieces shared by several modules.
import { z } from 'zod';

/** Ids are opaque strings; a malformed one is simply not found (CONTRACT §1), so no format check. */
export const idParam = z.object({ id: z.string().max(200) });

export const timestamp = z.iso.datetime().describe('ISO-8601 UTC timestamp');

/** The body of every error response (SPEC §7, CONTRACT §2); the OpenAPI document's `Error`. */
export const errorBodySchema = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    message: z.string(),
    details: z
      .array(
        z.object({
          in: z.enum(['body', 'query', 'path', 'header']).describe('The part of the request the problem is in'),
          path: z.string().describe('The field within that part, such as `name` or `items.0.id`; empty for the part as a whole'),
          message: z.string(),
        }),
      )
      .optional(),
  })
  .describe('Error body (SPEC §7)');

export const optionalOrganizationId = z.string().max(200).optional().describe("Organization; defaults to the API token's, or to a session user's only organization");

/** The query of a create that takes `organizationId` in its body too: SPEC §4 lets it come in either. */
export const organizationQuery = z.object({ organizationId: optionalOrganizationId });

/** A list's `organizationId` (CONTRACT §4): one of the caller's organizations, or 404. */
export const organizationFilter = z.string().max(200).optional().describe("Only this organization's rows (default: every organization of the caller)");

/** Dates as the API shows them. */
export const iso = (date: Date) => date.toISOString();
export const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null);

/** Postgres text cannot hold NUL, and no name of ours needs control characters. */
export const plainText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');
