import { z } from 'zod';
import { listQuery } from '../../lib/pagination.js';
import { plainText, timestamp } from '../../lib/schemas.js';

/** A variant's config is handed to the game as JSON; kept small so every export can carry it. */
export const MAX_CONFIG_BYTES = 64 * 1024;
export const MAX_VARIANT_ASSETS = 500;

const assetId = z.string().max(200);

const config = z
  .record(z.string(), z.unknown())
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_CONFIG_BYTES, `must be at most ${MAX_CONFIG_BYTES} bytes as JSON`)
  .describe(
    'JSON object given to the game as window.playable.config (≤ 64 KiB). Conventional keys: storeUrl (CTA target), orientation (portrait | landscape | both).',
  );

export const variantSchema = z.object({
  id: z.string(),
  gameId: z.string(),
  organizationId: z.string(),
  name: z.string(),
  entryAssetId: z.string(),
  assetIds: z.array(z.string()),
  config: z.record(z.string(), z.unknown()),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const createVariantBody = z.strictObject({
  name: plainText(200).describe('Unique within the game'),
  entryAssetId: assetId.describe("A ready text/html asset of the same organization: the playable's entry page"),
  assetIds: z.array(assetId).max(MAX_VARIANT_ASSETS).optional().describe('Ready assets the entry page loads, matched to its references by file name'),
  config: config.optional(),
});

export const updateVariantBody = z
  .strictObject({
    name: createVariantBody.shape.name.optional(),
    entryAssetId: createVariantBody.shape.entryAssetId.optional(),
    assetIds: createVariantBody.shape.assetIds.describe('Replaces the whole list'),
    config: config.optional().describe('Replaces the whole config'),
  })
  .refine((b) => Object.keys(b).length > 0, 'give at least one of name, entryAssetId, assetIds, config');

export const listVariantsQuery = listQuery(['createdAt', 'updatedAt', 'name']);
