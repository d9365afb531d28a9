/**
 * `fields` without the keys whose value is `undefined`, in their order: an absent key, never
 * `k: undefined` (results and events are compared and serialized as such). Zod-free: workflows
 * import it.
 */
export function defined<T extends object>(fields: T): Defined<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out as Defined<T>;
}

type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};
