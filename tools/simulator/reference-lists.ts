/**
 * The static reference lists (`GET /static_content_reference_list`) in English and Italian.
 * Ids are the same in both languages; the catalogue refers to these ids.
 */

/** The languages the supplier serves. */
export const LANGUAGES = ['en', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];

/** One entry of a reference list: a stable id and its name in each language. */
export interface Localized {
  readonly id: string;
  readonly en: string;
  readonly it: string;
}

export const CATEGORIES: readonly Localized[] = [
  { id: '1', en: 'Hotel', it: 'Hotel' },
  { id: '2', en: 'Apartment', it: 'Appartamento' },
  { id: '3', en: 'Bed and breakfast', it: 'Bed and breakfast' },
  { id: '4', en: 'Resort', it: 'Resort' },
  { id: '5', en: 'Hostel', it: 'Ostello' },
  { id: '6', en: 'Guest house', it: 'Affittacamere' },
];

export const TREATMENT_CATEGORIES: readonly Localized[] = [
  { id: 'RO', en: 'Room only', it: 'Solo pernottamento' },
  { id: 'BB', en: 'Bed and breakfast', it: 'Pernottamento e colazione' },
  { id: 'HB', en: 'Half board', it: 'Mezza pensione' },
  { id: 'FB', en: 'Full board', it: 'Pensione completa' },
  { id: 'AI', en: 'All inclusive', it: 'Tutto incluso' },
];

export const ROOM_AMENITIES: readonly Localized[] = [
  { id: 'r1', en: 'Air conditioning', it: 'Aria condizionata' },
  { id: 'r2', en: 'Minibar', it: 'Minibar' },
  { id: 'r3', en: 'In-room safe', it: 'Cassaforte in camera' },
  { id: 'r4', en: 'Flat-screen TV', it: 'TV a schermo piatto' },
  { id: 'r5', en: 'Wi-Fi', it: 'Wi-Fi' },
  { id: 'r6', en: 'Hairdryer', it: 'Asciugacapelli' },
  { id: 'r7', en: 'Balcony', it: 'Balcone' },
  { id: 'r8', en: 'Sea view', it: 'Vista mare' },
  { id: 'r9', en: 'Bathtub', it: 'Vasca da bagno' },
  { id: 'r10', en: 'Shower', it: 'Doccia' },
  { id: 'r11', en: 'Coffee machine', it: 'Macchina da caffè' },
  { id: 'r12', en: 'Desk', it: 'Scrivania' },
  { id: 'r13', en: 'Soundproofing', it: 'Insonorizzazione' },
  { id: 'r14', en: 'Kitchenette', it: 'Angolo cottura' },
  { id: 'r15', en: 'Heating', it: 'Riscaldamento' },
];

export const PROPERTY_AMENITIES: readonly Localized[] = [
  { id: 'p1', en: 'Parking', it: 'Parcheggio' },
  { id: 'p2', en: 'Restaurant', it: 'Ristorante' },
  { id: 'p3', en: 'Bar', it: 'Bar' },
  { id: 'p4', en: 'Swimming pool', it: 'Piscina' },
  { id: 'p5', en: 'Fitness centre', it: 'Centro fitness' },
  { id: 'p6', en: 'Spa', it: 'Spa' },
  { id: 'p7', en: '24-hour front desk', it: 'Reception 24 ore su 24' },
  { id: 'p8', en: 'Airport shuttle', it: 'Navetta aeroportuale' },
  { id: 'p9', en: 'Pets allowed', it: 'Animali ammessi' },
  { id: 'p10', en: 'Free Wi-Fi', it: 'Wi-Fi gratuito' },
  { id: 'p11', en: 'Garden', it: 'Giardino' },
  { id: 'p12', en: 'Terrace', it: 'Terrazza' },
  { id: 'p13', en: 'Lift', it: 'Ascensore' },
  { id: 'p14', en: 'Meeting rooms', it: 'Sale riunioni' },
  { id: 'p15', en: 'Laundry service', it: 'Servizio lavanderia' },
  { id: 'p16', en: 'Room service', it: 'Servizio in camera' },
];

export const HOTEL_ATTRIBUTES: readonly Localized[] = [
  { id: '1', en: 'Number of floors', it: 'Numero di piani' },
  { id: '2', en: 'Year built', it: 'Anno di costruzione' },
  { id: '3', en: 'Total rooms', it: 'Numero totale di camere' },
  { id: '4', en: 'Check-in from (hour)', it: 'Check-in dalle (ora)' },
  { id: '5', en: 'Check-out until (hour)', it: 'Check-out entro le (ora)' },
  { id: '6', en: 'Pets allowed', it: 'Animali ammessi' },
  { id: '7', en: 'Year renovated', it: 'Anno di ristrutturazione' },
];

/** Themes appear in property details only (the seed lists no reference list for them). */
export const THEMES: readonly Localized[] = [
  { id: 't1', en: 'Romantic', it: 'Romantico' },
  { id: 't2', en: 'Business', it: 'Affari' },
  { id: 't3', en: 'Family', it: 'Famiglia' },
  { id: 't4', en: 'Wellness', it: 'Benessere' },
  { id: 't5', en: 'City break', it: 'Città' },
  { id: 't6', en: 'Seaside', it: 'Mare' },
  { id: 't7', en: 'Historic', it: 'Storico' },
];

/** `{ id, name }` in one language. */
export function localize(item: Localized, language: Language): { id: string; name: string } {
  return { id: item.id, name: item[language] };
}

const cache = new Map<Language, string>();

/** The JSON body of `GET /static_content_reference_list` in `language`, built once. */
export function referenceListJson(language: Language): string {
  let json = cache.get(language);
  if (json === undefined) {
    const list = (items: readonly Localized[]) => items.map((i) => localize(i, language));
    json = JSON.stringify({
      categories: list(CATEGORIES),
      treatment_categories: list(TREATMENT_CATEGORIES),
      room_amenities: list(ROOM_AMENITIES),
      property_amenities: list(PROPERTY_AMENITIES),
      hotel_attributes: list(HOTEL_ATTRIBUTES),
    });
    cache.set(language, json);
  }
  return json;
}
