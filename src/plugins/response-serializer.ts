// Responses are written by fast-json-stringify (Fastify's own serializer) from the JSON Schema
// of each route's zod response schema, compiled once at start-up. zod still validates requests,
// types the handlers and documents the API; what changes is only how a response becomes text:
// zod's encode + JSON.stringify cost ~60 µs of CPU for a 20-game list page, this ~5 µs (README
// "Benchmarks"). Like zod's output, only the properties a schema names are written, so a row's
// other columns never leak; values are not re-checked, as the handlers' types already are.
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import fastJson from 'fast-json-stringify';
import { z } from 'zod';

export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema, method, url }) => {
  if (!(schema instanceof z.ZodType)) throw new Error(`${method} ${url}: a response schema must be a zod schema`);
  const jsonSchema = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'output',
    // zod writes `additionalProperties: false` for its objects. Unlisted properties are never
    // written anyway, but fast-json-stringify checks the branches of a nullable object
    // (`anyOf`) against the value, and a value with an extra property would then match none.
    override: ({ jsonSchema }) => {
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
    },
  });
  return fastJson(jsonSchema as fastJson.AnySchema);
};
