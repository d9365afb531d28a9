/**
 * The zod helpers every contract of this project uses, in their own module so that every contract
 * file can use them without importing another contract.
 */
import { z } from 'zod';

/**
 * JSON `null` in an optional field means "absent" (rule 7): order systems in Java or Python send
 * `"notes": null`, and the supplier's own API types such fields as string or null. Wraps an
 * optional (or defaulted) schema so that null parses as if the field were missing.
 */
export function absent<T extends z.ZodType>(schema: T) {
  return z
    .preprocess<z.input<T>, T, z.input<T> | null>(
      (v) => (v === null ? undefined : v) as z.input<T>,
      schema,
    )
    .meta({ [NULL_IS_ABSENT]: 'field' });
}

/** An optional field, described for the published JSON Schemas; JSON `null` is absent. */
export function optionalField<T extends z.ZodType>(schema: T, description: string) {
  return absent(schema.optional().describe(description));
}

/**
 * Marks, for the published JSON Schemas (contract/), where JSON `null` is read as absent: `field`
 * (the value itself), `values` (the values of a map), `fields` (the fields of the variants of a
 * union of objects). A preprocessing step has no JSON Schema of its own, so the schema generator
 * reads this mark instead.
 */
export const NULL_IS_ABSENT = 'x-null-is-absent';

/**
 * A string that matches `re`. zod's check writes the `lastIndex` of the RegExp it is given, and
 * the values' patterns (src/shared/booking-values.ts) belong to modules the workflow sandbox
 * loads once and freezes for every workflow (`preloadModules`, src/workflow-bundle.ts): the
 * schema gets its own copy.
 */
export function matching(re: RegExp, message: string) {
  return z.string().regex(new RegExp(re), message);
}
