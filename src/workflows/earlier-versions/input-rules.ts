/**
 * Where the input checks of runs recorded before the published contract was whole decided
 * otherwise than today's, so that such runs replay as they ran (src/workflows/input-verdicts.ts):
 * texts were measured in UTF-16 code units (`.length`), so a character outside the Basic
 * Multilingual Plane (most emoji) counted twice, and a refusal named its field. Deleted with the
 * `contract-rules-as-published` patch (docs/earlier-versions.md).
 */
import type {
  BookRoomParams,
  CancelBookingParams,
  FieldIssue,
} from '../../shared/booking-contract';

/** `field: text` pairs, for the bounded texts of an input. */
type Texts = readonly (readonly [string, string | undefined, number])[];

function overlong(texts: Texts): FieldIssue[] {
  return texts
    .filter(([, v, max]) => v !== undefined && v.length > max)
    .map(([field, , max]) => ({ field, message: `at most ${max} characters` }));
}

/** The texts of a `bookRoom` input that were over their bound in UTF-16 code units. */
export function overlongInUtf16(p: BookRoomParams): FieldIssue[] {
  return overlong([
    ['optionId', p.optionId, 512],
    ...p.rooms.flatMap((r, i): Texts => [
      [`rooms.${i}.firstName`, r.firstName, 100],
      [`rooms.${i}.lastName`, r.lastName, 100],
      [`rooms.${i}.notes`, r.notes, 1000],
    ]),
    ...Object.entries(p.customFields ?? {}).map(([name, v]): Texts[number] => [
      `customFields.${name}`,
      v,
      255,
    ]),
  ]);
}

/** The texts of a `cancelBooking` input that were over their bound in UTF-16 code units. */
export function overlongCancelInUtf16(p: CancelBookingParams): FieldIssue[] {
  return overlong([['reason', p.reason, 500]]);
}
