import { PrismaPg } from '@prisma/adapter-pg';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';

export type Database = PrismaClient;
export { Prisma };

export function createDatabase(url: string, poolSize: number): Database {
  const adapter = new PrismaPg({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}
