// List endpoints share one query shape and one response envelope (SPEC §2, CONTRACT §1).
import { z } from 'zod';

export const MAX_LIMIT = 100;

/** A query-string integer written in plain decimal digits: `0x10`, `1e1` or ` 5` are refused. */
const decimalInteger = (min: number, max: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value),
    z.number({ error: 'must be a whole number written in decimal digits' }).int().min(min).max(max),
  );

/** page/limit/sort/order for a resource that can be sorted by `sortFields`. */
export function listQuery<const S extends readonly [string, ...string[]]>(sortFields: S) {
  return z.object({
    page: decimalInteger(1, Number.MAX_SAFE_INTEGER).default(1).describe('Page number, starting at 1'),
    limit: decimalInteger(1, MAX_LIMIT).default(20).describe(`Items per page, 1..${MAX_LIMIT}`),
    sort: z.enum(sortFields).default(sortFields[0]).describe('Field to sort by'),
    order: z.enum(['asc', 'desc']).default('desc').describe('Sort direction; ties are broken by id'),
  });
}

export interface PageRequest<S extends string = string> {
  page: number;
  limit: number;
  sort: S;
  order: 'asc' | 'desc';
}

/** Prisma's skip/take/orderBy for a page; `id` breaks ties so the order is stable. */
export function pageArgs<S extends string>(query: PageRequest<S>) {
  return {
    skip: (query.page - 1) * query.limit,
    take: query.limit,
    orderBy: [{ [query.sort]: query.order }, { id: query.order }] as Array<Record<string, 'asc' | 'desc'>>,
  };
}

export function envelope<T>(data: T[], total: number, query: PageRequest) {
  return {
    data,
    meta: { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) },
  };
}

export function envelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    meta: z.object({
      page: z.number().int(),
      limit: z.number().int(),
      total: z.number().int(),
      totalPages: z.number().int(),
    }),
  });
}
