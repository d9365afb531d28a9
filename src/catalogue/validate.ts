/** Argument checks shared by the CLI helpers and the schedule helper. */
import { CONTENT_LANGUAGES, type ContentLanguage } from './sync-contract';

/** Throws a `RangeError` naming the argument unless both are valid. */
export function checkCountryLanguage(
  countryCode: unknown,
  language: unknown,
): asserts language is ContentLanguage {
  if (typeof countryCode !== 'string' || !/^[A-Z]{2}$/.test(countryCode)) {
    throw new RangeError('countryCode: must be 2 upper-case letters (ISO 3166-1 alpha-2)');
  }
  checkLanguage(language);
}

export function checkLanguage(language: unknown): asserts language is ContentLanguage {
  if (!(CONTENT_LANGUAGES as readonly unknown[]).includes(language)) {
    throw new RangeError(`language: must be one of ${CONTENT_LANGUAGES.join(', ')}`);
  }
}
