// A short-lived, in-process memory of API-token rows by secret hash: a script's burst of
// requests costs one database lookup instead of one per request. Revoking a token through
// this instance forgets it at once (401 on its next use); another instance may accept it for
// up to the TTL (API_TOKEN_CACHE_SECONDS, README "Benchmarks"). Unknown secrets are never
// remembered, so a typo or a guess always reaches the database.
import type { ApiToken } from '../generated/prisma/client.js';

/** Enough for every active token of a large deployment; the oldest entry goes first. */
const MAX_ENTRIES = 10_000;

export class ApiTokenCache {
  private readonly entries = new Map<string, { token: ApiToken; until: number }>();

  constructor(private readonly ttlMs: number) {}

  get(hash: string, now = Date.now()): ApiToken | undefined {
    const entry = this.entries.get(hash);
    if (entry && entry.until > now) return entry.token;
    if (entry) this.entries.delete(hash);
    return undefined;
  }

  set(hash: string, token: ApiToken, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { token, until: now + this.ttlMs });
  }

  forget(tokenId: string): void {
    for (const [hash, entry] of this.entries) if (entry.token.id === tokenId) this.entries.delete(hash);
  }
}
