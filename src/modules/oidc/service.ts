// OpenID Connect sign-in (authorization code flow with PKCE, state and nonce) through
// openid-client. The provider's metadata is discovered on first use and kept. A sign-in finds
// the user by the provider's (issuer, subject) identity, else by verified e-mail (linking the
// identity to that account), else creates the user with a first organization.
import type { FastifyBaseLogger } from 'fastify';
import * as client from 'openid-client';
import type { Config, OidcConfig } from '../../config.js';
import type { Database } from '../../db/client.js';
import { AuthenticationError, ServiceUnavailableError } from '../../errors.js';
import { createAuthService } from '../auth/service.js';
import { email as emailSchema } from '../auth/schemas.js';

/** What the callback must match, kept in a signed cookie between the two redirects. */
export interface LoginAttempt {
  state: string;
  nonce: string;
  codeVerifier: string;
}

const PROVIDER_TIMEOUT_SECONDS = 10;
const NAME_MAX_LENGTH = 200;

export function createOidcService(db: Database, config: Config, oidc: OidcConfig, log: FastifyBaseLogger) {
  const auth = createAuthService(db, config);
  let discovered: Promise<client.Configuration> | undefined;

  function provider(): Promise<client.Configuration> {
    discovered ??= client
      .discovery(new URL(oidc.issuerUrl), oidc.clientId, undefined, client.ClientSecretBasic(oidc.clientSecret), {
        timeout: PROVIDER_TIMEOUT_SECONDS,
        // config.ts allows plain HTTP for a provider on loopback only.
        ...(oidc.issuerUrl.startsWith('http:') && { execute: [client.allowInsecureRequests] }),
      })
      .catch((error: unknown) => {
        discovered = undefined; // try again on the next sign-in
        log.warn({ err: error, issuer: oidc.issuerUrl }, 'OpenID provider discovery failed');
        throw new ServiceUnavailableError('The identity provider cannot be reached');
      });
    return discovered;
  }

  async function verifiedClaims(configuration: client.Configuration, callbackQuery: string, attempt: LoginAttempt): Promise<client.UserInfoResponse> {
    const currentUrl = new URL(oidc.redirectUrl);
    currentUrl.search = callbackQuery;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: attempt.codeVerifier,
        expectedState: attempt.state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims()!;
      // Many providers put e-mail and name only in the userinfo response.
      const userInfo = idToken.email === undefined ? await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub) : {};
      return { ...userInfo, ...idToken };
    } catch (error) {
      const reason = refusalReason(error);
      if (reason) throw new AuthenticationError(`Sign-in with the identity provider failed: ${reason}`);
      throw error;
    }
  }

  return {
    /** The provider URL to send the browser to, and what its return must match. */
    async startLogin(): Promise<{ url: string; attempt: LoginAttempt }> {
      const configuration = await provider();
      const attempt = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
      const url = client.buildAuthorizationUrl(configuration, {
        redirect_uri: oidc.redirectUrl,
        scope: oidc.scopes,
        state: attempt.state,
        nonce: attempt.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(attempt.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, attempt };
    },

    /** Verifies the provider's answer (the callback's query string) and starts a session. */
    async finishLogin(callbackQuery: string, attempt: LoginAttempt) {
      const configuration = await provider();
      const claims = await verifiedClaims(configuration, callbackQuery, attempt);
      // Some providers send the flag as a string.
      if (String(claims.email_verified) !== 'true') {
        throw new AuthenticationError('The identity provider has not verified this e-mail address');
      }
      const email = emailSchema.safeParse(claims.email);
      if (!email.success) throw new AuthenticationError('The identity provider gave no usable e-mail address');

      const identity = { issuer: configuration.serverMetadata().issuer, subject: claims.sub };
      const known = await db.userIdentity.findUnique({ where: { issuer_subject: identity }, include: { user: true } });
      let user = known?.user;
      if (!user) {
        user =
          (await db.user.findUnique({ where: { email: email.data } })) ??
          (await auth.createAccount({ email: email.data, name: displayName(claims, email.data), passwordHash: null })).user;
        await db.userIdentity.create({ data: { ...identity, userId: user.id } });
      }
      return { user, session: await auth.startSession(user.id) };
    },
  };
}

/** Why the provider's answer was refused, in protocol terms; undefined for other failures. */
function refusalReason(error: unknown): string | undefined {
  if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError) {
    return error.error_description ? `${error.error} (${error.error_description})` : error.error;
  }
  // The check that failed (state, nonce, issuer…) is the cause; its other fields hold the values.
  if (error instanceof client.ClientError) return error.cause instanceof Error ? error.cause.message : error.message;
  return undefined;
}

function displayName(claims: client.UserInfoResponse, email: string): string {
  const fromClaims = claims.name ?? [claims.given_name, claims.family_name].filter(Boolean).join(' ');
  // eslint-disable-next-line no-control-regex
  const clean = String(fromClaims ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, NAME_MAX_LENGTH);
  return clean || email.split('@')[0]!;
}
