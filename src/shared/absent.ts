/**
 * JSON `null` in an optional field means "absent" (rule 7), in every contract of this project.
 * Its own module so that every contract file can use it without importing another contract.
 */
import { z } from 'zod';

/**
 * JSON `null` in an optional field means "absent" (rule 7): order systems in Java or Python send
 * `"notes": null`, and the supplier's own API types such fields as string or null. Wraps an
 * optional (or defaulted) schema so that null parses as if the field were missing.
 */
export function absent<T extends z.ZodType>(schema: T) {
  return z.preprocess<z.input<T>, T, z.input<T> | null>(
    (v) => (v === null ? undefined : v) as z.input<T>,
    schema,
  );
}
