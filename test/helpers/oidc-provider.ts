// A real OpenID Provider (the `oidc-provider` package) on loopback, and a scripted browser
// that signs in at it, for the end-to-end tests of GET /auth/oidc/login and /callback.
import type { Server } from 'node:http';
import Provider from 'oidc-provider';
import { freePort } from '../global-setup.js';

export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Environment that points the app at this provider. */
  env: Record<string, string>;
  /**
   * Plays the browser at the provider: opens `authorizationUrl`, signs in as `accountId`,
   * consents, and returns the redirect back to the app (its path and query).
   */
  signIn(authorizationUrl: string, accountId: string): Promise<string>;
  close(): Promise<void>;
}

export async function startOidcProvider(accounts: Record<string, ProviderAccount>, redirectUri: string): Promise<TestOidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'playable-content-service';
  const clientSecret = 'provider-client-secret-0123456789abcdef';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'] }],
    pkce: { required: () => true, methods: ['S256'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['test-provider-cookie-key'] },
    async findAccount(_ctx, sub) {
      const account = accounts[sub];
      return account && { accountId: sub, claims: async () => ({ sub, ...account }) };
    },
  });
  const server: Server = provider.listen(port);
  await new Promise((resolve) => server.once('listening', resolve));

  async function signIn(authorizationUrl: string, accountId: string): Promise<string> {
    const cookies = new Map<string, string>();
    let url = authorizationUrl;
    let form: Record<string, string> | undefined;
    for (let step = 0; step < 12; step++) {
      const res = await fetch(url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
        },
        body: form && new URLSearchParams(form),
      });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const [name, ...value] = pair!.split('=');
        cookies.set(name!, value.join('='));
      }
      form = undefined;
      const location = res.headers.get('location');
      if (location) {
        const next = new URL(location, url);
        if (next.origin !== issuer) return next.pathname + next.search;
        url = next.href;
        continue;
      }
      // An interaction page: the login form, then the consent form.
      const html = await res.text();
      const action = /action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      if (!action || !prompt) throw new Error(`unexpected provider page (${res.status}): ${html.slice(0, 500)}`);
      url = new URL(action, url).href;
      form = prompt === 'login' ? { prompt, login: accountId, password: 'any' } : { prompt };
    }
    throw new Error('the provider did not redirect back');
  }

  return {
    issuer,
    clientId,
    clientSecret,
    env: { OIDC_ISSUER_URL: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret, OIDC_REDIRECT_URL: redirectUri },
    signIn,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
