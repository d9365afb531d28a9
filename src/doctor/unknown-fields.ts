/**
 * Fields of an answer a schema does not name. Information only (the schemas are loose on purpose:
 * an added field must never break a booking), and the first clue when a field was renamed.
 */
import type { z } from 'zod';

interface Def {
  readonly type: string;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly in?: z.ZodType;
  readonly options?: readonly z.ZodType[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Wrappers whose inner schema describes the value. */
const WRAPPERS: ReadonlySet<string> = new Set([
  'optional',
  'nullable',
  'default',
  'prefault',
  'catch',
  'readonly',
  'nonoptional',
]);

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(schema: z.ZodType, value: unknown, path: string, out: Set<string>): void {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) return walk(def.innerType, value, path, out);
  if (def.type === 'pipe' && def.in) return walk(def.in, value, path, out);
  if (def.type === 'union' && def.options) {
    for (const option of def.options) walk(option, value, path, out);
    return;
  }
  if (def.type === 'array' && def.element && Array.isArray(value)) {
    for (const item of value) walk(def.element, item, `${path}[]`, out);
    return;
  }
  if (def.type === 'object' && def.shape && isRecord(value)) {
    for (const [key, v] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`;
      const field = def.shape[key];
      if (field === undefined) out.add(at);
      else walk(field, v, at, out);
    }
  }
}

/**
 * Dotted paths (`properties[].rooms[].name`) of every field in `value` that `schema` does not
 * name, each once, in order of appearance. Inside fields typed `unknown` nothing is reported.
 */
export function unknownFields(schema: z.ZodType, value: unknown): string[] {
  const out = new Set<string>();
  walk(schema, value, '', out);
  return [...out];
}
