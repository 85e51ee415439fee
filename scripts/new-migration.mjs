// Writes prisma/migrations/<timestamp>_<name>/migration.sql: the SQL that takes the database
// from the schema.prisma of a git revision (default HEAD) to the one in the working tree.
//
// Why not `prisma migrate dev`: Prisma 7's migrate commands need a schema-engine binary that is
// downloaded from Prisma's servers, which this project's machines cannot reach. Prisma 6.19's
// schema engine also ships as WASM and runs `migrate diff` offline when told to use the JS
// engine with a driver adapter, so this script installs that version into a scratch folder and
// diffs two datamodels with it. Its driver adapter must be able to connect to some PostgreSQL
// (DATABASE_URL, default the local server), although no table is read. See DEVELOPERS.md.
//
//   node scripts/new-migration.mjs add_widgets [--from <git-rev>|--from-empty]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [name, ...flags] = process.argv.slice(2);
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: node scripts/new-migration.mjs <snake_case_name> [--from <git-rev>|--from-empty]');
  process.exit(2);
}
const fromEmpty = flags.includes('--from-empty');
const fromRev = flags.includes('--from') ? flags[flags.indexOf('--from') + 1] : 'HEAD';

const root = path.resolve(import.meta.dirname, '..');
const reachableDatabase = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const work = path.join(tmpdir(), 'pcs-prisma-diff');
mkdirSync(work, { recursive: true });
if (!existsSync(path.join(work, 'node_modules/.bin/prisma'))) {
  writeFileSync(path.join(work, 'package.json'), '{"private":true}');
  execFileSync('npm', ['install', '--no-save', 'prisma@6.19', '@prisma/adapter-pg@6.19', 'pg@8'], { cwd: work, stdio: 'inherit' });
}
writeFileSync(
  path.join(work, 'prisma.config.ts'),
  `import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';
export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  adapter: async () => new PrismaPg({ connectionString: ${JSON.stringify(reachableDatabase)} }),
} as never);
`,
);

// Prisma 6 wants the v6 generator name and a url in the datasource block; neither affects the SQL.
const asPrisma6 = (schema) =>
  schema
    .replace(/^\s*(output|moduleFormat)\s*=.*$/gm, '')
    .replace(/provider\s*=\s*"prisma-client"/, 'provider = "prisma-client-js"')
    .replace(/provider\s*=\s*"postgresql"/, `provider = "postgresql"\n  url = ${JSON.stringify(reachableDatabase)}`);

const current = readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8');
const previous = fromEmpty ? null : execFileSync('git', ['show', `${fromRev}:prisma/schema.prisma`], { cwd: root, encoding: 'utf8' });
writeFileSync(path.join(work, 'to.prisma'), asPrisma6(current));
const fromArgs = previous === null ? ['--from-empty'] : ['--from-schema-datamodel', 'from.prisma'];
if (previous !== null) writeFileSync(path.join(work, 'from.prisma'), asPrisma6(previous));

const diff = spawnSync('npx', ['prisma', 'migrate', 'diff', ...fromArgs, '--to-schema-datamodel', 'to.prisma', '--script'], {
  cwd: work,
  encoding: 'utf8',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_QUERY_ENGINE_LIBRARY: process.execPath },
});
if (diff.status !== 0) {
  console.error(diff.stderr);
  process.exit(diff.status ?? 1);
}
const sql = diff.stdout.replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/, '');
if (!/\S/.test(sql.replace(/^--.*$/gm, ''))) {
  console.error('schema.prisma has no changes against', fromEmpty ? 'an empty database' : fromRev);
  process.exit(1);
}
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const dir = path.join(root, 'prisma/migrations', `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, 'migration.sql'), sql);
console.log('wrote', path.relative(root, path.join(dir, 'migration.sql')));
