// A JSON provider's answer checked against the schema of what it publishes (DataForSEO's, the Trends
// API's): the value typed as the schema says, or a MalformedResponseError naming where it differs, in the
// provider's own words. Each schema is compiled once, on first use.
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { MalformedResponseError } from './contract.js';

const compiled = new Map<TSchema, ReturnType<typeof TypeCompiler.Compile>>();
const checkerOf = (schema: TSchema) => {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  return check;
};

/** Whether a value has the schema's shape. */
export const isShape = (schema: TSchema, value: unknown) => checkerOf(schema).Check(value);

/**
 * A provider's `expectShape(schema, value, what)`: `misshapen(what, where)` is the error's message, with
 * `where` the first place the value differs ("/tasks/0: Expected array").
 */
export function shapeExpecter(misshapen: (what: string, where: string) => string) {
  return <T extends TSchema>(schema: T, value: unknown, what: string): Static<T> => {
    const check = checkerOf(schema);
    if (check.Check(value)) return value as Static<T>;
    const first = check.Errors(value).First();
    throw new MalformedResponseError(misshapen(what, first ? `${first.path || '/'}: ${first.message}` : 'unknown'));
  };
}
