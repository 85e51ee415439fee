// Request bodies are JSON only (CONTRACT §1–§2): anything else, or a compressed body, is 415; malformed JSON is 400,
// and a body over the limit is 413 (Fastify raises those; src/plugins/errors.ts shapes them).
// CONTRACT §8: JSON nested deeper than 64 levels is 400 too. Nothing here walks untrusted input
// recursively: the text is scanned once, front to back, before it is parsed.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { type ErrorDetail, UNKNOWN_FIELD, UnsupportedMediaTypeError, ValidationError } from '../errors.js';

export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** The code unit a `\uXXXX` escape at `at` (its backslash) stands for, or -1 if there is none. */
function escapedCodeUnit(text: string, at: number): number {
  if (text.charCodeAt(at + 1) !== 0x75 /* u */) return -1;
  const hex = text.slice(at + 2, at + 6);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? Number.parseInt(hex, 16) : -1;
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * One pass over JSON text: whether objects and arrays nest deeper than `maxDepth` (brackets in
 * strings do not count), and whether a string holds an escaped NUL (`\u0000`; JSON allows no raw
 * control characters) or an escaped surrogate that is not half of an escaped pair (the only way a
 * lone one gets in: the body was decoded from UTF-8). Escaped pairs, as many encoders write
 * emoji, pass. Malformed text is left for the parser to refuse.
 */
export function scanJson(text: string, maxDepth: number): { tooDeep: boolean; mayBeUnstorable: boolean } {
  let depth = 0;
  let inString = false;
  let mayBeUnstorable = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) {
        const unit = escapedCodeUnit(text, i);
        if (unit === 0 || isLowSurrogate(unit)) mayBeUnstorable = true;
        else if (isHighSurrogate(unit)) {
          if (text.charCodeAt(i + 6) === BACKSLASH && isLowSurrogate(escapedCodeUnit(text, i + 6)))
            i += 6; // a pair: skip its first half
          else mayBeUnstorable = true;
        }
        i++; // the escaped character, whatever it is, cannot end the string
      } else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return { tooDeep: true, mayBeUnstorable };
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return { tooDeep: false, mayBeUnstorable };
}

/** A surrogate that is not half of a pair (with the u flag, a pair is one code point, not Cs). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why PostgreSQL cannot keep a string as sent: NUL in text and jsonb, a lone surrogate in jsonb (and text would get U+FFFD). */
function unstorable(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain the NUL character';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  return null;
}

/**
 * The first string (or key) of a parsed value PostgreSQL could not store, with its path (`''` for
 * the value itself or one of its own keys) and why, or null. Breadth-first with a queue of its
 * own: the depth of the value costs no stack. Only strings and containers are queued, and a path
 * is spelled out only for what is found.
 */
function findUnstorable(root: unknown): { path: string; message: string } | null {
  // Each entry: a value, the index of its container's entry (-1 for the root) and its key there.
  const queue: Array<{ value: unknown; parent: number; key: string }> = [{ value: root, parent: -1, key: '' }];
  const pathOf = (index: number): string => {
    const keys: string[] = [];
    for (let at = index; at > 0; at = queue[at]!.parent) keys.push(queue[at]!.key);
    return keys.reverse().join('.');
  };
  for (let i = 0; i < queue.length; i++) {
    const { value } = queue[i]!;
    if (typeof value === 'string') {
      const message = unstorable(value);
      if (message) return { path: pathOf(i), message };
    } else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const message = unstorable(key);
        if (message) return { path: pathOf(i), message };
        if (typeof item === 'string' || (item && typeof item === 'object')) queue.push({ value: item, parent: i, key });
      }
    }
  }
  return null;
}

const mayBeUnstorableMarker = Symbol('body has an escaped NUL or surrogate');

/** What PostgreSQL cannot store (NUL, lone surrogates) is refused before it reaches a query. */
function rejectUnstorableStrings(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const inBody = (request as { [mayBeUnstorableMarker]?: boolean })[mayBeUnstorableMarker] ? findUnstorable(request.body) : null;
  // A NUL can only reach the parsed query percent-encoded (Node refuses a raw one in the URL):
  // without `%00` in the URL there is nothing to walk. (A percent-encoded surrogate is not UTF-8:
  // the query parser makes it U+FFFD.)
  const inQuery = inBody === null && request.url.includes('%00') ? findUnstorable(request.query) : null;
  if (inBody) return done(ValidationError.of([{ in: 'body', ...inBody }]));
  if (inQuery) return done(ValidationError.of([{ in: 'query', ...inQuery }]));
  done();
}

/**
 * Bodies are validated strictly (CONTRACT §1), also where a route takes none: fields sent to it
 * are unknown fields (400), rather than silently dropped; `{}`, `null` or no body at all pass.
 */
function rejectUnexpectedBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const { body } = request;
  if (body === undefined || body === null) return done();
  if (typeof body !== 'object' || Array.isArray(body)) return done(ValidationError.of([{ in: 'body', path: '', message: 'this endpoint takes no body' }]));
  const [first, ...others] = Object.keys(body);
  if (first === undefined) return done();
  const unknown = (path: string): ErrorDetail => ({ in: 'body', path, message: UNKNOWN_FIELD });
  done(ValidationError.of([unknown(first), ...others.map(unknown)]));
}

export function registerJsonBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Nothing decodes a compressed body: read as JSON it would be garbage, or worse, pass.
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.split(',').some((coding) => !['', 'identity'].includes(coding.trim().toLowerCase()))) {
      return done(new UnsupportedMediaTypeError(`Content-Encoding ${encoding} is not supported: send the JSON body uncompressed`), undefined);
    }
    const text = body as string;
    // Many clients send `Content-Type: application/json` on every request, also on a DELETE or a
    // POST without a body: an empty body is "no body", not malformed JSON.
    if (text.length === 0) return done(null, undefined);
    const { tooDeep, mayBeUnstorable } = scanJson(text, MAX_JSON_DEPTH);
    if (tooDeep) return done(new ValidationError(`Invalid request: the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    if (mayBeUnstorable) (request as { [mayBeUnstorableMarker]?: boolean })[mayBeUnstorableMarker] = true;
    return parseJson(request, text, done);
  });
  // On the routes that read a body or a parsed query: a GET or HEAD without a querystring schema
  // reads neither, and is spared the hook.
  app.addHook('onRoute', (route) => {
    const readsBody = [route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD');
    if (!readsBody && !route.schema?.querystring) return;
    const own = route.preValidation ?? [];
    const takesNoBody = readsBody && !route.schema?.body ? [rejectUnexpectedBody] : [];
    route.preValidation = [rejectUnstorableStrings, ...takesNoBody, ...(Array.isArray(own) ? own : [own])];
  });
}
