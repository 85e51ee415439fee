// PNG, everything that happens to one:
// - lossless: re-encoded by sharp (libvips + libspng, zlib level 9, adaptive filtering; a
//   palette when the image has at most 256 colours), dropping text and time chunks. Kept only
//   when smaller AND its decoded pixels are identical to the original's (a streamed hash).
//   Left alone: animated PNGs (sharp keeps one frame), colour-managed ones (iCCP, or gAMA/cHRM
//   without sRGB: re-encoding would change how browsers show them), 16-bit ones.
// - fit, mildest first, each from the lossless bytes: down to 2048 px (no ad shows more), then a
//   palette of 256 colours (libimagequant, dithered), the same within 1024 and 512 px, then 16
//   colours. (PNG palettes are 1, 2, 4 or 8 bits: between 16 and 256 colours nothing is won.)
// The file stays a PNG under its own name.
import { extensionOf } from '../references.js';
import { describeLevel, dimensions, fitWithin, hasAtMostColours, image, LARGEST_USEFUL_SIDE, pixelHash } from './images.js';
import type { FileKind, LossyLevel, StepOutcome } from './types.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const isPng = (bytes: Buffer) => bytes.subarray(0, 8).equals(SIGNATURE);

/** The chunk types of a PNG (length, type, data, CRC after the signature). */
function chunkTypes(bytes: Buffer): Set<string> {
  const types = new Set<string>();
  for (let at = 8; at + 8 <= bytes.length; at += 12 + bytes.readUInt32BE(at)) {
    const type = bytes.toString('latin1', at + 4, at + 8);
    types.add(type);
    if (type === 'IDAT' || type === 'IEND') break; // colour and animation chunks all come before the image data
  }
  return types;
}

const NOT_PNG = 'kept as is: not a PNG file';
const ANIMATED = 'kept as is: animated PNG';

/** Why a PNG must not be re-encoded (`lossyToo`: not even by a lossy step), or undefined. */
function whyNotReencoded(bytes: Buffer, lossyToo = false): string | undefined {
  if (!isPng(bytes)) return NOT_PNG;
  const types = chunkTypes(bytes);
  if (types.has('acTL')) return ANIMATED;
  if (lossyToo) return undefined;
  if (types.has('iCCP') || (!types.has('sRGB') && (types.has('gAMA') || types.has('cHRM')))) return 'kept as is: colour-managed PNG';
  return undefined;
}

const ENCODE = { compressionLevel: 9, adaptiveFiltering: true } as const;
/** Palette images compress best unfiltered (adaptive filtering makes a dithered photo 40% larger). */
const PALETTE = { compressionLevel: 9, adaptiveFiltering: false, palette: true } as const;
/** libimagequant's speed: sharp's default (7) takes 20 s on a 1.5-megapixel photo, 3 takes 1.5 s for the same palette size. */
const QUANTIZE_EFFORT = 3;

async function lossless(bytes: Buffer): Promise<StepOutcome> {
  const why = whyNotReencoded(bytes);
  if (why) return { kept: why };
  const size = await dimensions(bytes);
  if (!size || size.depth !== 'uchar') return { kept: 'kept as is: unreadable, too large or 16-bit' };
  const candidates = [
    {
      action: 'repack PNG (zlib 9)',
      encode: () =>
        image(bytes)
          .png({ ...ENCODE, palette: false })
          .toBuffer(),
    },
  ];
  if (await hasAtMostColours(bytes, 256)) {
    candidates.push({
      action: 'repack PNG as palette (≤ 256 colours, exact)',
      encode: () =>
        image(bytes)
          .png({ ...PALETTE, colours: 256, quality: 100, dither: 0, effort: QUANTIZE_EFFORT })
          .toBuffer(),
    });
  }
  let best: { bytes: Buffer; action: string } | undefined;
  let original: string | undefined; // the pixels are decoded only once a candidate is smaller
  for (const candidate of candidates) {
    const encoded = await candidate.encode();
    if (encoded.length >= (best?.bytes.length ?? bytes.length)) continue;
    original ??= await pixelHash(bytes);
    if ((await pixelHash(encoded)) === original) best = { bytes: encoded, action: candidate.action };
  }
  return best ?? { kept: 'kept as is: no smaller identical encoding' };
}

const LEVELS: Array<{ side: number; colours?: number }> = [
  { side: LARGEST_USEFUL_SIDE },
  { side: LARGEST_USEFUL_SIDE, colours: 256 },
  { side: 1024, colours: 256 },
  { side: 512, colours: 256 },
  { side: 512, colours: 16 },
];

function lossy(): LossyLevel[] {
  return LEVELS.map(({ side, colours }) => ({
    id: `${colours ? `palette-${colours}` : 'truecolour'}@${side}`,
    async run(bytes: Buffer): Promise<StepOutcome> {
      const why = whyNotReencoded(bytes, true);
      if (why) return { kept: why };
      const size = await dimensions(bytes);
      if (!size) return { kept: 'kept as is: unreadable or too large' };
      if (!colours && Math.max(size.width, size.height) <= side) return { skipped: true };
      const encoded = await fitWithin(image(bytes), side)
        .png(colours ? { ...PALETTE, colours, dither: 1, effort: QUANTIZE_EFFORT } : { ...ENCODE, palette: false })
        .toBuffer();
      return { bytes: encoded, action: describeLevel(colours ? `palette PNG, ${colours} colours` : 'PNG', side, size) };
    },
  }));
}

export const png: FileKind = {
  name: 'png',
  version: 1,
  matches: (file) => extensionOf(file.fileName) === 'png' || file.contentType === 'image/png',
  lossless,
  lossy,
};
