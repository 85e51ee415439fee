// What webhook tests need besides the app: a real HTTP receiver on 127.0.0.1 that records every
// request and answers as the test says, a host table that stands in for DNS, and a Standard
// Webhooks signature check written from the spec with node:crypto alone.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ResolvedAddress, ResolveHost } from '../../src/modules/webhooks/target.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers its n-th request (0-based): a status, a redirect, or never. */
export type Answer = { status: number; location?: string } | 'hang';

export interface Receiver {
  url(path?: string): string;
  port: number;
  requests: ReceivedRequest[];
  answer(script: (request: ReceivedRequest, index: number) => Answer): void;
  /** Resolves once `count` requests have arrived. */
  received(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let script: (request: ReceivedRequest, index: number) => Answer = () => ({ status: 204 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      const answer = script(request, requests.length - 1);
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.location ? { location: answer.location } : {}).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    requests,
    url: (path = '/hooks') => `http://127.0.0.1:${port}${path}`,
    answer: (next) => void (script = next),
    async received(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A host table in place of DNS; a name it lacks does not resolve. */
export function hostTable(entries: Record<string, string> = {}): ResolveHost & { set(name: string, address: string): void } {
  const table = new Map(Object.entries(entries));
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    const address = table.get(hostname);
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return Object.assign(resolve, { set: (name: string, address: string) => void table.set(name, address) });
}

/**
 * The Standard Webhooks check, from the spec: HMAC-SHA256 keyed with the base64-decoded secret
 * (after whsec_) over "<webhook-id>.<webhook-timestamp>.<body>", compared with each v1 signature.
 */
export function signatureIsValid(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest();
  return String(headers['webhook-signature'])
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .some((s) => {
      const given = Buffer.from(s.slice(3), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
