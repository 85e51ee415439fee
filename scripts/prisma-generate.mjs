// Runs `prisma generate` offline. Prisma 7's client is TypeScript + WASM and needs no engine
// binary, but the CLI still insists on a schema-engine path it would otherwise download from
// Prisma's servers. Any existing file satisfies that check for `generate`.
import { spawnSync } from 'node:child_process';

const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const result = spawnSync('npx', ['prisma', 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
