// API-token revocations reach every instance at once: PostgreSQL LISTEN/NOTIFY on the
// service's own database (there whether or not Redis is configured). `app.forgetApiTokens(ids)`
// forgets the tokens here and NOTIFYs; every instance LISTENs on one connection of its own and
// forgets it in its token cache (src/plugins/token-cache.ts). Nothing happens per request.
// While that connection is down a notification could be missed, so the cache is emptied and
// not used until LISTEN is back (every request then reads the token row); reconnection retries
// with a growing delay.
import pg from 'pg';

const REVOCATION_CHANNEL = 'pcs_api_token_revoked';
/** The listening connection's application_name, as seen in pg_stat_activity. */
export const LISTENER_NAME = 'pcs-token-revocations';
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 10_000;

interface Log {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface RevocationListener {
  /** Tells every instance (this one included) that the token is revoked. */
  publish(tokenId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens for revocations on `pool`'s database. `onRevoked` gets each token id; `onPaused` is
 * called when notifications may be missed (not yet listening, or the connection dropped) and
 * `onListening` once they cannot again.
 */
export function listenForRevocations(
  pool: pg.Pool,
  handlers: { onRevoked(tokenId: string): void; onPaused(): void; onListening(): void },
  log: Log,
): RevocationListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = RETRY_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;

  const scheduleReconnect = (error: unknown) => {
    if (closed || retryTimer) return;
    handlers.onPaused();
    log.warn({ err: error, retryInMs: retryMs }, 'token revocation listener disconnected; token cache paused');
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };

  async function connect(): Promise<void> {
    const next = new pg.Client({ ...pool.options, application_name: LISTENER_NAME, keepAlive: true });
    next.on('notification', (message) => {
      if (message.channel === REVOCATION_CHANNEL && message.payload) handlers.onRevoked(message.payload);
    });
    const lost = (error: unknown) => {
      next.end().catch(() => {});
      if (client !== next) return; // a failed attempt: connect() below reports it
      client = undefined;
      scheduleReconnect(error);
    };
    next.on('error', lost);
    next.on('end', () => lost(new Error('connection ended')));
    try {
      await next.connect();
      await next.query(`LISTEN ${REVOCATION_CHANNEL}`);
    } catch (error) {
      next.end().catch(() => {});
      scheduleReconnect(error);
      return;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    if (retryMs > RETRY_MIN_MS) log.info({}, 'token revocation listener connected again');
    retryMs = RETRY_MIN_MS;
    handlers.onListening();
  }

  handlers.onPaused();
  void connect();

  return {
    async publish(tokenId) {
      await pool.query('SELECT pg_notify($1, $2)', [REVOCATION_CHANNEL, tokenId]);
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await client?.end().catch(() => {});
      client = undefined;
    },
  };
}
