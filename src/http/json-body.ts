// The validator of the routes that take a JSON body (/api/webhooks). The app's
// Ajv coerces types, which suits query strings ("20" is 20) but not JSON, where
// "0.5", null or 5 given for a number, list or text is the client's mistake to
// be told about, not guessed at. So the body is checked strictly by TypeBox;
// params and query are converted from text first, then checked the same way.
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import type { FastifySchemaCompiler } from 'fastify';

/** What a value must be, in words, from its schema (for the problem's detail). */
function describe(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf as Array<Record<string, unknown>>;
    if (options.every((o) => 'const' in o)) return `one of ${options.map((o) => String(o.const)).join(', ')}`;
    return options.map(describe).join(', or ');
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  switch (schema.type) {
    case 'number':
    case 'integer': {
      const kind = schema.type === 'integer' ? 'a whole number' : 'a number';
      return schema.minimum !== undefined && schema.maximum !== undefined ? `${kind} from ${schema.minimum} to ${schema.maximum}` : kind;
    }
    case 'string':
      return schema.maxLength !== undefined ? `text of ${schema.minLength ?? 0}–${schema.maxLength} characters` : 'text';
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'array':
      return schema.maxItems !== undefined ? `a list of at most ${schema.maxItems}` : 'a list';
    case 'object':
      return 'an object';
    default:
      return 'valid';
  }
}

/** TypeBox's errors in the shape Fastify's validation errors carry (and errors.plugin.ts reads), one per field. */
function asValidationErrors(
  errors: Iterable<ValueError>,
): Array<{ instancePath: string; keyword: string; message: string; params: Record<string, unknown> }> {
  const seen = new Set<string>();
  const out = [];
  for (const e of errors) {
    const segments = e.path.split('/').filter(Boolean);
    if (e.type === ValueErrorType.ObjectAdditionalProperties) {
      out.push({
        instancePath: e.path,
        keyword: 'additionalProperties',
        message: 'is not a known field',
        params: { additionalProperty: e.path.replace(/^\//, '') },
      });
      continue;
    }
    if (seen.has(e.path)) continue;
    seen.add(e.path);
    if (e.type === ValueErrorType.ObjectRequiredProperty) {
      out.push({
        instancePath: e.path,
        keyword: 'required',
        message: `is required: ${describe(e.schema as Record<string, unknown>)}`,
        params: { missingProperty: segments.join('.') },
      });
      continue;
    }
    const schema = e.schema as Record<string, unknown>;
    const allowed =
      Array.isArray(schema.anyOf) && (schema.anyOf as Array<Record<string, unknown>>).every((o) => 'const' in o)
        ? (schema.anyOf as Array<{ const: string }>).map((o) => o.const)
        : undefined;
    const message =
      e.type === ValueErrorType.ObjectMinProperties ? 'must name at least one field to change' : `must be ${describe(schema)}`;
    out.push({ instancePath: e.path, keyword: 'type', message, params: allowed ? { allowedValues: allowed } : {} });
  }
  return out;
}

/** For a route's validatorCompiler: strict JSON bodies, converted params and query. */
export const strictJsonValidator: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = TypeCompiler.Compile(schema);
  const strict = httpPart === 'body';
  const validate = (data: unknown) => {
    const value = strict ? data : Value.Default(schema, Value.Convert(schema, data));
    // Headers are checked, never replaced: the request keeps Node's own header object.
    if (check.Check(value)) return httpPart === 'headers' ? true : { value };
    const errors = asValidationErrors(check.Errors(value));
    return {
      error: Object.assign(new Error(errors.map((e) => `${e.instancePath || httpPart} ${e.message}`).join('; ')), {
        validation: errors,
        validationContext: httpPart,
      }),
    };
  };
  return validate;
};
