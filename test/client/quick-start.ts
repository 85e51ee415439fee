// The README's quick start (register, sign in, create an API token, create a game, list games),
// written against a client generated from the live OpenAPI document: `./api.js` is what
// openapi-typescript makes of GET /api/openapi.json, and openapi-fetch types every call, body,
// response and error by it. test/openapi-client.test.ts generates the types, type-checks this
// file against them (tsconfig.json here) and runs it.
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type ErrorBody = components['schemas']['Error'];

export interface QuickStartResult {
  registered: number;
  tokenPrefix: string;
  gameName: string;
  listed: string[];
  /** The second run of the README: the account and the game name are taken. */
  secondRegistration: ErrorBody | undefined;
  secondGame: ErrorBody | undefined;
}

export async function quickStart(origin: string, email: string): Promise<QuickStartResult> {
  const client = createClient<paths>({ baseUrl: origin });

  // 1. Create an account, then sign in: the session cookie comes back in Set-Cookie.
  const account = { email, password: 'a long password', name: 'Dev' };
  const registered = await client.POST('/api/auth/register', { body: account });
  const login = await client.POST('/api/auth/login', { body: { email: account.email, password: account.password } });
  if (!login.data) throw new Error(`login failed: ${login.response.status} ${login.error?.message}`);
  const cookie = login.response.headers.get('set-cookie')!.split(';')[0]!;

  // 2. An API token for scripts; its secret is in this response only.
  const token = await client.POST('/api/tokens', {
    body: { name: 'quick start', scopes: ['games:read', 'games:write'] },
    headers: { cookie },
  });
  if (!token.data) throw new Error(`token creation failed: ${token.error?.message}`);
  const authorization = `Bearer ${token.data.token}`;

  // 3. Create a game and list games with the token.
  const game = await client.POST('/api/games', {
    body: { name: 'Space Blaster', description: 'My first playable' },
    headers: { authorization },
  });
  if (!game.data) throw new Error(`game creation failed: ${game.error?.message}`);
  const games = await client.GET('/api/games', {
    params: { query: { sort: 'name', order: 'asc', limit: 10 } },
    headers: { authorization },
  });
  if (!games.data) throw new Error(`listing failed: ${games.error?.message}`);

  // Run a second time: 409 for the account and for the game name, with the contract's body.
  const again = await client.POST('/api/auth/register', { body: account });
  const sameGame = await client.POST('/api/games', { body: { name: 'Space Blaster' }, headers: { authorization } });

  return {
    registered: registered.response.status,
    tokenPrefix: token.data.prefix,
    gameName: game.data.name,
    listed: games.data.data.map((g) => g.name),
    secondRegistration: again.error,
    secondGame: sameGame.error,
  };
}
