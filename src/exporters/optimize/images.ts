// What png.ts and jpeg.ts share: sharp set up for bounded memory, the size an image is reduced
// to, and the proof that a "lossless" re-encoding shows the same pixels.
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import sharp, { type Sharp } from 'sharp';

// libvips' operation cache and thread pool are native memory outside the JS heap: the export's
// memory bound (CONTRACT §8) counts them, so nothing is cached and one thread works per image.
sharp.cache(false);
sharp.concurrency(1);

/** Larger images are left alone (8192 × 8192): decoding one costs 256 MiB of pixels. */
const MAX_PIXELS = 8192 * 8192;
/** No ad is shown larger than this on its longest side (a phone's screen in device pixels, rounded down). */
export const LARGEST_USEFUL_SIDE = 2048;

/** A sharp pipeline over `bytes` that reads top to bottom (a strip of pixels in memory, not the whole image). */
export const image = (bytes: Buffer): Sharp => sharp(bytes, { sequentialRead: true, limitInputPixels: MAX_PIXELS });

/** Shrinks to fit `side` × `side` (never enlarges). */
export const fitWithin = (pipeline: Sharp, side: number): Sharp => pipeline.resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });

/** SHA-256 of the decoded pixels as 8-bit sRGB + alpha, streamed: two images with the same hash look the same. */
export async function pixelHash(bytes: Buffer): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(image(bytes).toColourspace('srgb').ensureAlpha().raw(), hash);
  return hash.digest('hex');
}

/** Whether the image has at most `max` distinct colours (alpha included), streamed and stopped early. */
export async function hasAtMostColours(bytes: Buffer, max: number): Promise<boolean> {
  const seen = new Set<number>();
  const pixels = image(bytes).toColourspace('srgb').ensureAlpha().raw();
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of pixels) {
    const data = carry.length ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    const whole = data.length - (data.length % 4);
    for (let at = 0; at < whole; at += 4) {
      seen.add(data.readUInt32BE(at));
      if (seen.size > max) {
        pixels.destroy();
        return false;
      }
    }
    carry = data.subarray(whole);
  }
  return true;
}

/** Width and height, or undefined when sharp cannot read the image or it is too large to touch. */
export async function dimensions(bytes: Buffer): Promise<{ width: number; height: number; depth: string } | undefined> {
  try {
    const meta = await sharp(bytes).metadata();
    if (!meta.width || !meta.height || meta.width * meta.height > MAX_PIXELS) return undefined;
    return { width: meta.width, height: meta.height, depth: meta.depth ?? 'uchar' };
  } catch {
    return undefined;
  }
}

/** "palette PNG, 128 colours, ≤ 1024 px" style descriptions of a lossy level. */
export function describeLevel(what: string, side: number, size: { width: number; height: number }): string {
  return Math.max(size.width, size.height) > side ? `${what}, downscaled to fit ${side} px` : what;
}
