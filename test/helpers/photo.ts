// Photo-like PNGs for the optimization tests: smooth gradients with sensor-like noise, which
// PNG's lossless compression cannot shrink much (as with a real photo saved as PNG). Encoded with
// adaptive filtering at zlib level 9, so that a lossless re-pack gains next to nothing either.
import sharp from 'sharp';

/** A deterministic PNG of `width` × `height` RGB pixels (seeded xorshift noise: the same bytes every run). */
export async function photoPng(width: number, height: number, seed = 1): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  let state = seed * 2654435761 || 1;
  const noise = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % 40;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      pixels[at] = ((x * 200) / width + noise()) | 0;
      pixels[at + 1] = ((y * 180) / height + noise()) | 0;
      pixels[at + 2] = (((x + y) * 120) / (width + height) + 60 + noise()) | 0;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toBuffer();
}
