// Request bodies are JSON only (CONTRACT §1–§2): anything else is 415, malformed JSON is 400,
// and a body over the limit is 413 (Fastify raises those; src/plugins/errors.ts shapes them).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '../errors.js';

/** Whether a parsed JSON value or query object holds a string (or key) with a NUL character. */
function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([key, item]) => key.includes('\u0000') || containsNul(item));
  }
  return false;
}

/** PostgreSQL text and jsonb cannot hold NUL, so such input is refused before it reaches a query. */
async function rejectNulCharacters(request: FastifyRequest): Promise<void> {
  for (const [where, value] of [['body', request.body], ['querystring', request.query]] as const) {
    if (containsNul(value)) {
      throw new ValidationError(`Invalid request: ${where} must not contain the NUL character`, [
        { path: where, message: 'must not contain the NUL character' },
      ]);
    }
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
