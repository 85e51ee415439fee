import { defineConfig } from 'prisma/config';

// The CLI is used here only for `prisma generate` (see DEVELOPERS.md). DATABASE_URL is read
// lazily so that generate works with no database configured.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/postgres' },
});
