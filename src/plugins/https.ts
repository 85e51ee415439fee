// CONTRACT §6. With enforcement on, a request that did not arrive over HTTPS — on this socket,
// or as told by X-Forwarded-Proto from a trusted proxy (TRUST_PROXY) — is redirected (GET,
// HEAD: 301 to the https:// URL) or refused (anything else: 403, as its body was already sent
// in clear). HTTPS responses carry Strict-Transport-Security. Requests on the health socket
// (HEALTH_SOCKET: the container's own probe, src/modules/health/socket.ts) are not network
// traffic and pass.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { ForbiddenError } from '../errors.js';
import { isHealthSocketRequest } from '../modules/health/socket.js';

/** Whether the request came over HTTPS, on this socket or as a trusted proxy says (a scheme is case-insensitive). */
export const isHttps = (request: FastifyRequest): boolean => request.protocol?.toLowerCase() === 'https';

async function httpsPlugin(app: FastifyInstance, { config }: { config: Config }) {
  if (!config.http.httpsEnforced) return;
  const hsts = `max-age=${config.http.hstsMaxAgeSeconds}; includeSubDomains`;
  // Redirect to the configured public address when it is https; the Host header is the client's word.
  const publicUrl = new URL(config.publicUrl);
  const httpsOrigin = publicUrl.protocol === 'https:' ? publicUrl.origin : null;

  app.addHook('onRequest', async (request, reply) => {
    if (isHealthSocketRequest(request.raw)) return;
    if (isHttps(request)) {
      reply.header('strict-transport-security', hsts);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new ForbiddenError('HTTPS is required: send this request to the https:// address');
    }
    return reply.redirect(`${httpsOrigin ?? `https://${request.hostname}`}${request.url}`, 301);
  });
}

export default fp(httpsPlugin, { name: 'https' });
