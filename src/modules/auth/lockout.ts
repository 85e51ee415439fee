// Per-account lockout (CONTRACT §8): after 10 failed password checks for one account within 15
// minutes, further ones are refused with 429 until the window ends, whatever the client's
// address. The count lives in PostgreSQL (table login_attempts), so every instance shares it.
//
// An attempt is counted *before* the password is checked (one atomic upsert), so concurrent
// guesses cannot slip past the limit; a correct password deletes the count. Accounts are keyed
// by the e-mail as given, known or not: an unknown address is locked exactly like a known one,
// and the lockout reveals nothing about which accounts exist.
import type { Database } from '../../db/client.js';
import { RateLimitError } from '../../errors.js';

export const MAX_FAILED_ATTEMPTS = 10;
export const LOCKOUT_WINDOW_SECONDS = 15 * 60;

export function createLoginLockout(db: Database) {
  return {
    /** Counts an attempt at the account's password; 429 when the account is locked. */
    async countAttempt(email: string): Promise<void> {
      const [row] = await db.$queryRaw<Array<{ count: number; retryAfter: number }>>`
        INSERT INTO login_attempts AS a (email, count, window_started_at) VALUES (${email}, 1, now())
        ON CONFLICT (email) DO UPDATE SET
          count = CASE WHEN a.window_started_at <= now() - make_interval(secs => ${LOCKOUT_WINDOW_SECONDS}) THEN 1 ELSE a.count + 1 END,
          window_started_at = CASE WHEN a.window_started_at <= now() - make_interval(secs => ${LOCKOUT_WINDOW_SECONDS}) THEN now() ELSE a.window_started_at END
        RETURNING a.count, ceil(extract(epoch FROM a.window_started_at + make_interval(secs => ${LOCKOUT_WINDOW_SECONDS}) - now()))::int AS "retryAfter"`;
      if (row && row.count > MAX_FAILED_ATTEMPTS) {
        throw new RateLimitError(
          `Too many failed sign-ins for this account (${MAX_FAILED_ATTEMPTS} within ${LOCKOUT_WINDOW_SECONDS / 60} minutes); retry after the time in Retry-After`,
          Math.max(1, row.retryAfter),
          MAX_FAILED_ATTEMPTS,
        );
      }
    },

    /** The password was right: the account starts afresh. */
    async clear(email: string): Promise<void> {
      await db.loginAttempts.deleteMany({ where: { email } });
    },

    /** The password was wrong: the attempt stays counted; windows that are over are dropped. */
    async purgeExpired(): Promise<void> {
      await db.$executeRaw`DELETE FROM login_attempts WHERE window_started_at <= now() - make_interval(secs => ${LOCKOUT_WINDOW_SECONDS})`;
    },
  };
}
