// Responses are serialized by fast-json-stringify from the zod schemas (src/plugins/response-
// serializer.ts). It must write what zod's output did: only the properties a schema names.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serializerCompiler } from '../src/plugins/response-serializer.js';

const serializerFor = (schema: z.ZodType) => serializerCompiler({ schema, method: 'GET', url: '/test', httpStatus: '200' });

describe('response serializer', () => {
  const user = z.object({ id: z.string(), name: z.string().nullable(), team: z.object({ id: z.string(), size: z.number().int() }).nullable() });

  it('writes only the properties the schema names, at every depth', () => {
    const serialize = serializerFor(user);
    const row = { id: 'u1', name: null, passwordHash: 'secret', team: { id: 't1', size: 3, internal: 'x' } };
    expect(JSON.parse(serialize(row))).toEqual({ id: 'u1', name: null, team: { id: 't1', size: 3 } });
    expect(JSON.parse(serialize({ id: 'u2', name: 'Ann', team: null }))).toEqual({ id: 'u2', name: 'Ann', team: null });
  });

  it('leaves out an optional property that is absent, and writes it when present', () => {
    const serialize = serializerFor(z.object({ page: z.number().int(), nextCursor: z.string().nullable().optional() }));
    expect(serialize({ page: 1 })).toBe('{"page":1}');
    expect(serialize({ page: 1, nextCursor: null })).toBe('{"page":1,"nextCursor":null}');
  });
});
