// Reads a ZIP independently of the code that wrote it: every entry of the central directory, its
// name (and whether it is flagged UTF-8), and its bytes checked against the recorded CRC-32.
import { crc32 } from 'node:zlib';
import { unzipSync } from 'fflate';

export interface ZipEntry {
  name: string;
  utf8Flag: boolean;
  bytes: Buffer;
}

export function readZip(zip: Buffer): ZipEntry[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('no end-of-central-directory record');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const contents = unzipSync(zip);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const flags = zip.readUInt16LE(at + 8);
    const crc = zip.readUInt32LE(at + 16);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const bytes = Buffer.from(contents[name]!);
    if (crc32(bytes) !== crc) throw new Error(`CRC-32 of ${name} does not match`);
    entries.push({ name, utf8Flag: (flags & 0x800) !== 0, bytes });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}
