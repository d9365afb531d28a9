/**
 * What a namespace lacks of the product's search attributes (src/shared/search-attributes.ts):
 * each is present, missing, or registered under another type (a conflict no registration can
 * fix). Pure: the caller reads the namespace's attributes.
 */
import type { SearchAttributeType } from '@temporalio/common';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from '../shared/search-attributes';

/** A search attribute by name and type (the SDK's `SearchAttributeType`, e.g. `KEYWORD`). */
export interface SearchAttributeSpec {
  readonly name: string;
  readonly type: SearchAttributeType;
}

/** The product's search attributes, in the order of the one list. */
export const PRODUCT_SEARCH_ATTRIBUTES: readonly SearchAttributeSpec[] =
  ALL_SEARCH_ATTRIBUTE_KEYS.map((k) => ({ name: k.name, type: k.type }));

/** An attribute the namespace has under another type than the product writes. */
export interface SearchAttributeConflict {
  readonly name: string;
  /** The type the product writes. */
  readonly wanted: SearchAttributeType;
  /** The type registered on the namespace (as the server names it, e.g. `INT`). */
  readonly registered: string;
}

export interface SearchAttributePlan {
  /** Registered with the product's type: nothing to do. */
  readonly present: readonly SearchAttributeSpec[];
  /** Not registered: `setup` adds them. */
  readonly missing: readonly SearchAttributeSpec[];
  /** Registered with another type: nothing the product can do; a person decides. */
  readonly conflicts: readonly SearchAttributeConflict[];
}

/**
 * `existing`: the namespace's custom search attributes, name → type as the SDK names types
 * (`KEYWORD`, `INT`, `DATETIME`, …; `indexedValueTypeName` of the server's enum).
 */
export function planSearchAttributes(
  existing: Readonly<Record<string, string>>,
  wanted: readonly SearchAttributeSpec[] = PRODUCT_SEARCH_ATTRIBUTES,
): SearchAttributePlan {
  const present: SearchAttributeSpec[] = [];
  const missing: SearchAttributeSpec[] = [];
  const conflicts: SearchAttributeConflict[] = [];
  for (const spec of wanted) {
    const registered = Object.hasOwn(existing, spec.name) ? existing[spec.name] : undefined;
    if (registered === undefined) missing.push(spec);
    else if (registered === spec.type) present.push(spec);
    else conflicts.push({ name: spec.name, wanted: spec.type, registered });
  }
  return { present, missing, conflicts };
}

/**
 * The server's `IndexedValueType` enum name (`INDEXED_VALUE_TYPE_KEYWORD`) as the SDK names the
 * type (`KEYWORD`); an unknown value as `UNKNOWN(<n>)`.
 */
export function indexedValueTypeName(enumName: string | undefined, value: number): string {
  return enumName?.startsWith('INDEXED_VALUE_TYPE_')
    ? enumName.slice('INDEXED_VALUE_TYPE_'.length)
    : `UNKNOWN(${value})`;
}

/** `KEYWORD` → `Keyword`, `KEYWORD_LIST` → `KeywordList`: the spelling of the CLIs and the docs. */
export function cliTypeName(type: string): string {
  return type
    .toLowerCase()
    .split('_')
    .map((w) => (w === '' ? w : w[0]!.toUpperCase() + w.slice(1)))
    .join('');
}

/** `Name=Type` pairs, as `tcld --search-attribute` and deploy/temporal/setup-namespace.sh write them. */
export function nameTypePairs(specs: readonly SearchAttributeSpec[]): string[] {
  return specs.map((s) => `${s.name}=${cliTypeName(s.type)}`);
}

/** One line per conflict's facts: `BookingPhase is registered as Int; the product writes Keyword`. */
export function conflictLines(conflicts: readonly SearchAttributeConflict[]): string[] {
  return conflicts.map(
    (c) =>
      `${c.name} is registered as ${cliTypeName(c.registered)}; the product writes ${cliTypeName(c.wanted)}`,
  );
}
