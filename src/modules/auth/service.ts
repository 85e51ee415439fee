import argon2 from 'argon2';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { AuthenticationError, ValidationError } from '../../errors.js';
import type { User } from '../../generated/prisma/client.js';
import { iso } from '../../lib/schemas.js';
import { uniqueOr409 } from '../../lib/unique.js';
import { createLoginLockout } from './lockout.js';

export const toUserDto = (user: User) => ({ id: user.id, email: user.email, name: user.name, createdAt: iso(user.createdAt) });

export function createAuthService(db: Database, config: Config) {
  const hashOptions = { type: argon2.argon2id, ...config.auth.argon2, parallelism: 1 } as const;
  // Verified against when the e-mail is unknown, so both failures take about the same time.
  const decoyHash = argon2.hash('decoy password never used', hashOptions);

  const lockout = createLoginLockout(db);

  /**
   * Whether `password` is the user's (an unknown user or one without a password: verified
   * against a decoy, so every failure takes about the same time). Settles the lockout count.
   */
  async function checkPassword(user: User | null, password: string): Promise<boolean> {
    const valid = await argon2.verify(user?.passwordHash ?? (await decoyHash), password);
    if (user?.passwordHash && valid) {
      await lockout.clear(user.email);
      return true;
    }
    await lockout.purgeExpired();
    return false;
  }

  async function startSession(userId: string) {
    return db.session.create({
      data: { userId, expiresAt: new Date(Date.now() + config.auth.sessionTtlSeconds * 1000) },
    });
  }

  /**
   * A new user and a first organization they own (no password for users of the identity
   * provider). One nested write, so a user never exists without their first organization.
   */
  async function createAccount(input: { email: string; name: string; passwordHash: string | null }) {
    const { memberships, ...user } = await uniqueOr409(
      db.user.create({
        data: {
          ...input,
          memberships: { create: { role: 'owner', organization: { create: { name: `${input.name}'s organization` } } } },
        },
        include: { memberships: { include: { organization: true } } },
      }),
      'An account with this e-mail already exists',
    );
    return { user, organization: memberships[0]!.organization };
  }

  return {
    startSession,
    createAccount,

    async register(input: { email: string; password: string; name: string }) {
      const passwordHash = await argon2.hash(input.password, hashOptions);
      const { user, organization } = await createAccount({ email: input.email, name: input.name, passwordHash });
      return { user, organization, session: await startSession(user.id) };
    },

    async login(input: { email: string; password: string }) {
      const email = input.email.trim().toLowerCase();
      await lockout.countAttempt(email);
      const user = await db.user.findUnique({ where: { email } });
      if (!(await checkPassword(user, input.password))) throw new AuthenticationError('Invalid e-mail or password');
      return { user: user!, session: await startSession(user!.id) };
    },

    /**
     * Replaces the password and ends every other session of the user. A wrong current password
     * is a 400 on `currentPassword` (a 401 would tell the client its session had ended) and
     * counts towards the account's lockout, like a failed sign-in.
     */
    async changePassword(userId: string, sessionId: string, input: { currentPassword: string; newPassword: string }) {
      const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
      if (!user.passwordHash) {
        throw new ValidationError('This account has no password: it signs in through the identity provider', [
          { in: 'body', path: 'currentPassword', message: 'the account has no password' },
        ]);
      }
      await lockout.countAttempt(user.email);
      if (!(await checkPassword(user, input.currentPassword))) {
        throw new ValidationError('The current password is not correct', [{ in: 'body', path: 'currentPassword', message: 'is not the current password' }]);
      }
      const passwordHash = await argon2.hash(input.newPassword, hashOptions);
      await db.$transaction([
        db.user.update({ where: { id: userId }, data: { passwordHash } }),
        db.session.updateMany({ where: { userId, id: { not: sessionId }, revokedAt: null }, data: { revokedAt: new Date() } }),
      ]);
    },

    async logout(sessionId: string) {
      await db.session.update({ where: { id: sessionId }, data: { revokedAt: new Date() } });
    },

    async me(userId: string) {
      return db.user.findUniqueOrThrow({
        where: { id: userId },
        include: { memberships: { include: { organization: true }, orderBy: { createdAt: 'asc' } } },
      });
    },
  };
}
