// JPEG, everything that happens to one:
// - lossless: sharp cannot re-pack a JPEG without decoding and re-encoding it (that is lossy;
//   jpegtran-style Huffman re-packing is not in libvips). So the lossless step removes only
//   metadata segments no browser uses to draw it — comments, APP3–APP13/APP15 (Photoshop,
//   IPTC…), and Exif/XMP unless they matter (an Exif orientation other than 1 is kept, as is
//   XMP describing an HDR gain map). The compressed image data is copied byte for byte, so
//   the pixels are identical by construction. JFIF, ICC profiles (APP2) and Adobe (APP14) stay.
// - fit, mildest first, each from the lossless bytes: re-encoded by mozjpeg (through sharp) at
//   quality 80, 70, 60, 50 within 2048 px (no ad shows more; the Exif rotation is applied to
//   the pixels), then 50 within 1024 px and 40 within 512 px.
// The file stays a JPEG under its own name.
import { extensionOf } from '../references.js';
import { describeLevel, dimensions, fitWithin, image, LARGEST_USEFUL_SIDE } from './images.js';
import type { FileKind, LossyLevel, StepOutcome } from './types.js';

const SOS = 0xda;
const APP0 = 0xe0;
const APP1 = 0xe1;
const APP2 = 0xe2;
const APP14 = 0xee;
const APP15 = 0xef;
const COM = 0xfe;

const isJpeg = (bytes: Buffer) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;

/** Exif's orientation tag (0x0112) from an APP1 Exif segment's body, 1 when absent. */
function exifOrientation(body: Buffer): number {
  if (body.toString('latin1', 0, 6) !== 'Exif\0\0') return 1;
  const tiff = body.subarray(6);
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  try {
    const ifd = u32(4);
    for (let i = 0, count = u16(ifd); i < count; i++) {
      const entry = ifd + 2 + i * 12;
      if (u16(entry) === 0x0112) return u16(entry + 8);
    }
  } catch {
    return 0; // unreadable: treat as "matters", keep it
  }
  return 1;
}

/** Whether a metadata segment changes how a browser draws the image. */
function segmentMatters(marker: number, body: Buffer): boolean {
  if (marker === APP0 || marker === APP2 || marker === APP14) return true;
  if (marker === APP1) return exifOrientation(body) !== 1 || body.includes('hdrgm');
  return !(marker === COM || (marker > APP2 && marker <= APP15));
}

/** The JPEG without the segments that do not matter, or undefined when none can go or it cannot be read. */
export function stripMetadata(bytes: Buffer): Buffer | undefined {
  if (!isJpeg(bytes)) return undefined;
  const kept: Buffer[] = [bytes.subarray(0, 2)];
  let dropped = false;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === SOS) {
      kept.push(bytes.subarray(at)); // the scans and everything after them, byte for byte
      return dropped ? Buffer.concat(kept) : undefined;
    }
    const end = at + 2 + bytes.readUInt16BE(at + 2);
    if (end > bytes.length) return undefined;
    if (segmentMatters(marker, bytes.subarray(at + 4, end))) kept.push(bytes.subarray(at, end));
    else dropped = true;
    at = end;
  }
  return undefined;
}

const LEVELS: Array<{ side: number; quality: number }> = [
  { side: LARGEST_USEFUL_SIDE, quality: 80 },
  { side: LARGEST_USEFUL_SIDE, quality: 70 },
  { side: LARGEST_USEFUL_SIDE, quality: 60 },
  { side: LARGEST_USEFUL_SIDE, quality: 50 },
  { side: 1024, quality: 50 },
  { side: 512, quality: 40 },
];

function lossy(): LossyLevel[] {
  return LEVELS.map(({ side, quality }) => ({
    id: `q${quality}@${side}`,
    async run(bytes: Buffer): Promise<StepOutcome> {
      const size = isJpeg(bytes) ? await dimensions(bytes) : undefined;
      if (!size) return { kept: 'kept as is: not a readable JPEG, or too large' };
      const encoded = await fitWithin(image(bytes).autoOrient(), side).jpeg({ quality, mozjpeg: true }).toBuffer();
      return { bytes: encoded, action: describeLevel(`JPEG quality ${quality} (mozjpeg)`, side, size) };
    },
  }));
}

export const jpeg: FileKind = {
  name: 'jpeg',
  version: 1,
  matches: (file) => ['jpg', 'jpeg'].includes(extensionOf(file.fileName)) || file.contentType === 'image/jpeg',
  async lossless(bytes): Promise<StepOutcome> {
    const stripped = stripMetadata(bytes);
    return stripped ? { bytes: stripped, action: 'strip JPEG metadata (image data unchanged)' } : { kept: 'kept as is: no metadata to strip' };
  },
  lossy,
};
