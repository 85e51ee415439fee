// A short-lived, in-process memory of API tokens by secret hash: a script's burst of
// requests costs one database lookup instead of one per request. A revoked token, or one whose
// creator's membership changed, is forgotten at once on every instance
// (src/plugins/token-revocations.ts broadcasts it); while that broadcast cannot be heard the
// cache is paused. Entries live API_TOKEN_CACHE_SECONDS at most (README "Benchmarks"). Unknown
// secrets are never remembered, so a typo or a guess always reaches the database.
import type { ApiTokenGrant } from '../modules/tokens/service.js';

/** Enough for every active token of a large deployment; the oldest entry goes first. */
const MAX_ENTRIES = 10_000;

export class ApiTokenCache {
  private readonly entries = new Map<string, { token: ApiTokenGrant; until: number }>();
  /** Token id → secret hash, so forgetting a token is one lookup. */
  private readonly hashes = new Map<string, string>();
  private paused = false;

  constructor(private readonly ttlMs: number) {}

  /** Forgets everything and remembers nothing until resume(): revocations may go unheard meanwhile. */
  pause(): void {
    this.paused = true;
    this.clear();
  }

  resume(): void {
    this.clear();
    this.paused = false;
  }

  get(hash: string, now = Date.now()): ApiTokenGrant | undefined {
    const entry = this.entries.get(hash);
    if (entry && entry.until > now) return entry.token;
    if (entry) this.delete(hash);
    return undefined;
  }

  set(hash: string, token: ApiTokenGrant, now = Date.now()): void {
    if (this.ttlMs <= 0 || this.paused) return;
    if (this.entries.size >= MAX_ENTRIES) this.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { token, until: now + this.ttlMs });
    this.hashes.set(token.id, hash);
  }

  forget(tokenId: string): void {
    const hash = this.hashes.get(tokenId);
    if (hash !== undefined) this.delete(hash);
  }

  private clear(): void {
    this.entries.clear();
    this.hashes.clear();
  }

  private delete(hash: string): void {
    const entry = this.entries.get(hash);
    if (entry) this.hashes.delete(entry.token.id);
    this.entries.delete(hash);
  }
}
