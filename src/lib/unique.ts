import { ConflictError } from '../errors.js';

/** Runs a write; a unique-constraint violation (Prisma P2002) becomes a 409 with `message`. */
export async function uniqueOr409<T>(write: Promise<T>, message: string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') throw new ConflictError(message);
    throw error;
  }
}
