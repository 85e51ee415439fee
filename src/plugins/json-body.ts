// Request bodies are JSON only (CONTRACT §1–§2): anything else is 415, malformed JSON is 400,
// and a body over the limit is 413 (Fastify raises those; src/plugins/errors.ts shapes them).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '../errors.js';

/** The path of the first string (or key) holding a NUL character in a parsed value, or null. */
function pathOfNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = key.includes('\u0000') ? path : pathOfNul(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

/** PostgreSQL text and jsonb cannot hold NUL, so such input is refused before it reaches a query. */
async function rejectNulCharacters(request: FastifyRequest): Promise<void> {
  const path = pathOfNul(request.body, 'body') ?? pathOfNul(request.query, 'querystring');
  if (path) {
    throw new ValidationError(`Invalid request: ${path}: must not contain the NUL character`, [
      { path, message: 'must not contain the NUL character' },
    ]);
  }
}

export function registerJsonBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Many clients send `Content-Type: application/json` on every request, also on a DELETE or a
  // POST without a body: an empty body is "no body", not malformed JSON.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined);
    return parseJson(request, body as string, done);
  });
  app.addHook('preValidation', rejectNulCharacters);
}
