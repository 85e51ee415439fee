import pg from 'pg';
import { newTokenSecret } from '../src/modules/tokens/secret.js';
const c = new pg.Client({ connectionString: process.env.URL }); await c.connect();
const t = newTokenSecret();
await c.query(`insert into api_tokens (id, organization_id, name, prefix, token_hash, scopes) values (gen_random_uuid(), '11111111-1111-1111-1111-111111111111', 'x', $1, $2, '{games:read}')`, [t.prefix, t.hash]);
console.log(t.secret); await c.end();
