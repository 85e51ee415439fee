// fast-check generators of raw HTTP/1.1 requests, mostly broken in the ways Node's parser or the
// service must refuse: bad tokens and characters, conflicting framing, bodies longer than their
// Content-Length, broken chunks, oversized headers, and clients that give up half-way. Each
// request is either complete (or broken beyond repair), so the server always answers or closes;
// only an `abandoned` one is cut off by the client, and gets no answer.
import fc from 'fast-check';

export interface MalformedRequest {
  /** The bytes, one character each (latin1), so that a failing case prints readably. */
  text: string;
  /** The client closes its side after writing (no answer is expected). */
  abandoned: boolean;
  /** HEAD: answers carry no body. */
  head: boolean;
}

const CRLF = '\r\n';
const token = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'get', 'G@T', 'PO ST', 'TRACE', 'PRI', 'CONNECT', '');
const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1 x', 'http/1.1', '');

/** Targets: real routes (with ids that exist and ids that do not), the upload URL, and junk. */
function target(paths: string[]) {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...paths) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '*',
        'http://127.0.0.1/api/health',
        '/api/../../etc/passwd',
        '/api/games?%zz',
        '/api/ga mes',
        '/api/games#frag',
        '/api/\u0000',
        '/api/gämes',
        '/%',
        '',
      ),
    },
    { weight: 1, arbitrary: fc.nat({ max: 20_000 }).map((n) => `/api/games?q=${'a'.repeat(n)}`) },
  );
}

const headerName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('Content-Type', 'Authorization', 'Accept', 'X-Request', 'Origin', 'Cookie', 'Expect', 'Idempotency-Key') },
  { weight: 1, arbitrary: fc.constantFrom('Bad Header', 'X:Colon', '', 'X-\u0001', 'Ümlaut', '(x)', ' X-Leading') },
);
const headerValue = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, '')) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json',
      'text/plain',
      '100-continue',
      'Bearer pcs_x',
      'session=junk',
      '\u0000',
      'a\u0007b',
      `a${CRLF} folded`,
      'a\rb',
      'a\nb',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 40_000 }).map((n) => 'v'.repeat(n)) },
);

/** How the body travels, and what is wrong with it. */
const framing = fc.constantFrom(
  'none',
  'exact',
  'exact',
  'longer-than-length',
  'conflicting-lengths',
  'bad-length',
  'chunked',
  'bad-chunk-size',
  'chunk-without-crlf',
  'chunked-and-length',
  'unknown-coding',
  'abandon-mid-body',
);

function frame(kind: string, body: Buffer): { headers: string[]; payload: Buffer; abandoned: boolean } {
  const b = (s: string) => Buffer.from(s, 'latin1');
  const chunked = Buffer.concat([b(`${body.length.toString(16)}${CRLF}`), body, b(`${CRLF}0${CRLF}${CRLF}`)]);
  switch (kind) {
    case 'exact':
      return { headers: [`Content-Length: ${body.length}`], payload: body, abandoned: false };
    case 'longer-than-length':
      // The rest reads as the next request's first line: complete, so the server judges it at once.
      return { headers: [`Content-Length: ${Math.floor(body.length / 2)}`], payload: Buffer.concat([body, b(`${CRLF}${CRLF}`)]), abandoned: false };
    case 'conflicting-lengths':
      return { headers: [`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`], payload: body, abandoned: false };
    case 'bad-length':
      return { headers: ['Content-Length: -1'], payload: body, abandoned: false };
    case 'chunked':
      return { headers: ['Transfer-Encoding: chunked'], payload: chunked, abandoned: false };
    case 'bad-chunk-size':
      return { headers: ['Transfer-Encoding: chunked'], payload: Buffer.concat([b(`zz${CRLF}`), body, b(`${CRLF}0${CRLF}${CRLF}`)]), abandoned: false };
    case 'chunk-without-crlf':
      return {
        headers: ['Transfer-Encoding: chunked'],
        payload: Buffer.concat([b(`${body.length.toString(16)}${CRLF}`), body, b(`XX0${CRLF}${CRLF}`)]),
        abandoned: false,
      };
    case 'chunked-and-length':
      return { headers: ['Transfer-Encoding: chunked', `Content-Length: ${chunked.length}`], payload: chunked, abandoned: false };
    case 'unknown-coding':
      return { headers: ['Transfer-Encoding: gzip'], payload: body, abandoned: false };
    case 'abandon-mid-body':
      return { headers: [`Content-Length: ${body.length + 1000}`], payload: body, abandoned: true };
    default:
      return { headers: [], payload: Buffer.alloc(0), abandoned: false };
  }
}

/**
 * One raw request to 127.0.0.1:`port`: `paths` are request targets worth hitting (routes with
 * real ids, the local store's upload URL); `credentials` are header lines that authenticate.
 */
export function malformedRequest(port: number, paths: string[], credentials: string[]): fc.Arbitrary<MalformedRequest> {
  return fc
    .record({
      method: token,
      target: target(paths),
      version,
      host: fc.constantFrom(`Host: 127.0.0.1:${port}`, `Host: 127.0.0.1:${port}`, '', 'Host: a b', `Host: 127.0.0.1:${port}${CRLF}Host: other`),
      auth: fc.constantFrom('', ...credentials),
      headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }),
      contentType: fc.constantFrom('Content-Type: application/json', 'Content-Type: text/plain', 'Content-Type: application/json; charset=utf-8', ''),
      framing,
      body: fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ maxLength: 200 }), fc.constantFrom('{}', '{"name":"fuzz"}', '[[[[[[[[[[', '{"name":"\\u0000"}', '')),
      lineEnd: fc.constantFrom(CRLF, CRLF, CRLF, CRLF, '\n'),
    })
    .map((r) => {
      const { headers, payload, abandoned } = frame(r.framing, Buffer.from(r.body, 'utf8'));
      const lines = [
        `${r.method} ${r.target} ${r.version}`.trim(),
        r.host,
        r.auth,
        r.contentType,
        ...r.headers.map(([name, value]) => `${name}: ${value}`),
        ...headers,
        // The server closes the connection once it has answered, so every answer is complete.
        'Connection: close',
      ].filter(Boolean);
      return { text: `${lines.join(r.lineEnd)}${r.lineEnd}${r.lineEnd}${payload.toString('latin1')}`, abandoned, head: r.method === 'HEAD' };
    });
}

export interface ParsedResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** Null where HTTP allows none (1xx, 204, 304, an answer to HEAD). */
  body: Buffer | null;
}

/** Every response in what a server wrote on one connection (answers to pipelined requests follow each other). */
export function parseResponses(raw: Buffer, head: boolean): ParsedResponse[] {
  const responses: ParsedResponse[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) throw new Error(`a response without the end of its head: ${raw.subarray(at, at + 200).toString('latin1')}`);
    const [statusLine = '', ...headerLines] = raw.subarray(at, end).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!status) throw new Error(`not an HTTP response: ${statusLine}`);
    const statusCode = Number(status[1]);
    const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    at = end + 4;
    let body: Buffer | null = null;
    // An answer to HEAD has no body, unless the request could not even be parsed (then no one knows it was HEAD).
    const headAnswered = head && (at >= raw.length || raw.subarray(at, at + 5).toString('latin1') === 'HTTP/');
    const bodiless = statusCode < 200 || statusCode === 204 || statusCode === 304 || headAnswered;
    if (!bodiless && headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = raw.indexOf('\r\n', at);
        const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
        at = lineEnd + 2;
        if (!size) {
          at += 2;
          break;
        }
        parts.push(raw.subarray(at, at + size));
        at += size + 2;
      }
      body = Buffer.concat(parts);
    } else if (!bodiless) {
      const length = Number(headers['content-length'] ?? raw.length - at);
      body = raw.subarray(at, at + length);
      at += length;
    }
    responses.push({ statusCode, headers, body });
  }
  return responses;
}
