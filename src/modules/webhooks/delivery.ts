// One attempt to deliver a webhook message: a POST of the stored body, signed per the Standard
// Webhooks spec with the maintained implementation (`standardwebhooks`), to the address that
// src/modules/webhooks/target.ts checked — the connection goes to that IP, with the URL's host
// in the Host header and, for https, in SNI and the certificate check. Redirects are not
// followed (a 3xx is a failed attempt), and the whole exchange must fit in the timeout.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookTarget } from './target.js';

export interface Message {
  /** The webhook-id header: the delivery's id, the same on every attempt. */
  id: string;
  /** The exact body. */
  payload: string;
}

/** What one attempt got: a status code, or why there was none. */
export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/** The Standard Webhooks headers of one attempt: signed over "<id>.<timestamp>.<body>". */
export function signedHeaders(secret: string, message: Message, now: Date): Record<string, string> {
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(message.id, now, message.payload),
  };
}

const USER_AGENT = 'PlayableContentService-Webhooks/1';

export function postMessage(target: WebhookTarget, headers: Record<string, string>, payload: string, timeoutMs: number): Promise<AttemptResult> {
  const { url } = target;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request({
      host: target.address,
      family: target.family,
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      // A fresh connection each time: a pooled one might lead to an address checked for another URL.
      agent: false,
      // SNI and the certificate check use the URL's host name (an IP address in the URL is checked as such).
      ...(url.protocol === 'https:' && !isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) ? { servername: url.hostname } : {}),
      headers: {
        host: url.host,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
        'user-agent': USER_AGENT,
        ...headers,
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
    request.once('response', (response) => {
      const statusCode = response.statusCode ?? 0;
      // The answer's body is not needed; read it off so the connection can close.
      response.resume();
      const ok = statusCode >= 200 && statusCode < 300;
      resolve({
        ok,
        statusCode,
        error: ok ? null : `The receiver answered ${statusCode}${statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : ''}`,
      });
    });
    request.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.name === 'AbortError' || error.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (error.code ?? error.message);
      resolve({ ok: false, statusCode: null, error: `The request failed: ${reason}` });
    });
    request.end(payload);
  });
}
