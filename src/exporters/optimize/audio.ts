// Audio, everything that happens to it:
// - lossless: nothing (re-encoding compressed audio is never lossless).
// - fit, mildest first: re-encoded by ffmpeg in the same format at 96, 64, 48, then 32 kbit/s
//   (MP3 with LAME, Ogg with Vorbis, M4A/AAC with ffmpeg's AAC encoder; WAV stays 16-bit PCM,
//   mono at 22.05 kHz). ffmpeg is not a dependency of the service: without it (FFMPEG_PATH,
//   default `ffmpeg` on PATH) the report says that audio could not be reduced.
// The file keeps its name and format.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { extensionOf } from '../references.js';
import type { FileKind, LossyLevel, StepOutcome, VariantFacts } from './types.js';

const run = promisify(execFile);
const ENCODER_TIMEOUT_MS = 60_000;
const CODECS: Record<string, string[]> = {
  mp3: ['-c:a', 'libmp3lame'],
  ogg: ['-c:a', 'libvorbis'],
  oga: ['-c:a', 'libvorbis'],
  m4a: ['-c:a', 'aac'],
  aac: ['-c:a', 'aac'],
  wav: ['-c:a', 'pcm_s16le'],
};
const BITRATES = [96, 64, 48, 32];

const found = new Map<string, Promise<boolean>>();

/** The ffmpeg binary if it runs (asked once per process), else null. */
export async function findEncoder(ffmpegPath: string): Promise<string | null> {
  if (!found.has(ffmpegPath)) {
    found.set(
      ffmpegPath,
      run(ffmpegPath, ['-hide_banner', '-version'], { timeout: 10_000 }).then(
        () => true,
        () => false,
      ),
    );
  }
  return (await found.get(ffmpegPath)!) ? ffmpegPath : null;
}

/** `bytes` re-encoded by ffmpeg with `settings`, in the format its extension names. */
async function encode(ffmpeg: string, extension: string, bytes: Buffer, settings: string[]): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pcs-audio-'));
  try {
    const input = path.join(dir, `in.${extension}`);
    const output = path.join(dir, `out.${extension}`);
    await writeFile(input, bytes);
    await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-y', '-i', input, '-map', '0:a', '-map_metadata', '-1', ...CODECS[extension]!, ...settings, output], {
      timeout: ENCODER_TIMEOUT_MS,
    });
    return await readFile(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function lossy(facts: VariantFacts, fileName: string): LossyLevel[] {
  const extension = extensionOf(fileName);
  const levels =
    extension === 'wav'
      ? [{ id: 'mono-22k', settings: ['-ac', '1', '-ar', '22050'], action: 'WAV re-encoded mono, 22.05 kHz (ffmpeg)' }]
      : BITRATES.map((kbps) => ({ id: `${kbps}k`, settings: ['-b:a', `${kbps}k`], action: `audio re-encoded at ${kbps} kbit/s (ffmpeg)` }));
  return levels.map((level) => ({
    id: level.id,
    async run(bytes: Buffer): Promise<StepOutcome> {
      if (!facts.ffmpeg) return { kept: 'kept as is: no audio encoder (ffmpeg not found), so its bitrate could not be lowered' };
      try {
        return { bytes: await encode(facts.ffmpeg, extension, bytes, level.settings), action: level.action };
      } catch (error) {
        return { kept: `kept as is: ffmpeg could not re-encode it (${(error as Error).message.split('\n')[0]!.slice(0, 120)})` };
      }
    },
  }));
}

export const audio: FileKind = {
  name: 'audio',
  version: 1,
  matches: (file) => extensionOf(file.fileName) in CODECS,
  lossy,
};
