// The schemas every resource's routes share (TypeBox): the problem answer, the enum helper, the
// parameters no route adds to, and the error answers a route documents.
import { Type } from '@sinclair/typebox';

export const stringEnum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.Optional(Type.String()),
    invalid_params: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String(),
          reason: Type.String(),
          allowed: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]))),
        }),
      ),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
);

/** The problem+json answers a route documents: the 4xx it names, and on every route 500 (a bug) and 503 (a dependency away, or overload). */
/** A route's problem answers: the codes given, and 400 (a parameter it does not document, or a malformed one), 500 and 503 for every route. */
export const errorResponses = (...codes: number[]) =>
  Object.fromEntries([...new Set([400, ...codes, 500, 503])].sort().map((code) => [code, Type.Ref(ProblemSchema)]));

export const DataDate = (description: string) => Type.Union([Type.String({ format: 'date' }), Type.Null()], { description });

export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const NoBody = Type.Object({}, { additionalProperties: false, description: 'No fields: send {} or no body' });
