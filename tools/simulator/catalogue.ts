/**
 * The content catalogue: properties in several countries, generated deterministically in code
 * from a fixed seed (the same catalogue whatever the simulator's own seed, so ids and names are
 * stable across runs and documents). Records are built on demand per language; nothing large
 * is kept in memory beyond one small base record per property.
 */
import { createPrng, hashString } from './prng';
import type { Language, Localized } from './reference-lists';
import {
  CATEGORIES,
  HOTEL_ATTRIBUTES,
  PROPERTY_AMENITIES,
  ROOM_AMENITIES,
  THEMES,
  localize,
} from './reference-lists';
import { ROOM_TYPES } from './room-types';

interface CityDef {
  readonly en: string;
  readonly it: string;
  readonly lat: number;
  readonly lon: number;
  readonly stateCode: string;
  readonly stateName: string;
  readonly zip: string;
  readonly phoneArea: string;
}

interface CountryDef {
  readonly code: string;
  readonly name: { readonly en: string; readonly it: string };
  /** Property ids of this country are `idBase + 1 .. idBase + count`. */
  readonly idBase: number;
  readonly count: number;
  readonly phonePrefix: string;
  readonly cities: readonly CityDef[];
  readonly prefixes: readonly string[];
  readonly words: readonly string[];
  readonly streets: readonly string[];
}

const COUNTRIES: readonly CountryDef[] = [
  {
    code: 'IT',
    name: { en: 'Italy', it: 'Italia' },
    idBase: 1000,
    count: 480,
    phonePrefix: '+39',
    cities: [
      {
        en: 'Rome',
        it: 'Roma',
        lat: 41.9028,
        lon: 12.4964,
        stateCode: 'RM',
        stateName: 'Lazio',
        zip: '001',
        phoneArea: '06',
      },
      {
        en: 'Milan',
        it: 'Milano',
        lat: 45.4642,
        lon: 9.19,
        stateCode: 'MI',
        stateName: 'Lombardia',
        zip: '201',
        phoneArea: '02',
      },
      {
        en: 'Florence',
        it: 'Firenze',
        lat: 43.7696,
        lon: 11.2558,
        stateCode: 'FI',
        stateName: 'Toscana',
        zip: '501',
        phoneArea: '055',
      },
      {
        en: 'Venice',
        it: 'Venezia',
        lat: 45.4408,
        lon: 12.3155,
        stateCode: 'VE',
        stateName: 'Veneto',
        zip: '301',
        phoneArea: '041',
      },
      {
        en: 'Naples',
        it: 'Napoli',
        lat: 40.8518,
        lon: 14.2681,
        stateCode: 'NA',
        stateName: 'Campania',
        zip: '801',
        phoneArea: '081',
      },
      {
        en: 'Turin',
        it: 'Torino',
        lat: 45.0703,
        lon: 7.6869,
        stateCode: 'TO',
        stateName: 'Piemonte',
        zip: '101',
        phoneArea: '011',
      },
      {
        en: 'Bologna',
        it: 'Bologna',
        lat: 44.4949,
        lon: 11.3426,
        stateCode: 'BO',
        stateName: 'Emilia-Romagna',
        zip: '401',
        phoneArea: '051',
      },
      {
        en: 'Verona',
        it: 'Verona',
        lat: 45.4384,
        lon: 10.9916,
        stateCode: 'VR',
        stateName: 'Veneto',
        zip: '371',
        phoneArea: '045',
      },
      {
        en: 'Palermo',
        it: 'Palermo',
        lat: 38.1157,
        lon: 13.3615,
        stateCode: 'PA',
        stateName: 'Sicilia',
        zip: '901',
        phoneArea: '091',
      },
      {
        en: 'Genoa',
        it: 'Genova',
        lat: 44.4056,
        lon: 8.9463,
        stateCode: 'GE',
        stateName: 'Liguria',
        zip: '161',
        phoneArea: '010',
      },
    ],
    prefixes: [
      'Hotel',
      'Grand Hotel',
      'Albergo',
      'Palazzo',
      'Residenza',
      'Locanda',
      'B&B',
      'Resort',
    ],
    words: [
      'Aurora',
      'Bellavista',
      'Centrale',
      'del Duomo',
      'Miramare',
      'Splendid',
      'Excelsior',
      'Continental',
      'Ambasciatori',
      'San Marco',
      'Savoia',
      'della Torre',
      'Le Rose',
      'Il Giardino',
      'La Pergola',
      'Vittoria',
    ],
    streets: [
      'Via Roma',
      'Via Garibaldi',
      'Via Mazzini',
      'Corso Cavour',
      'Via Dante',
      'Piazza Verdi',
      'Corso Vittorio Emanuele II',
      'Via XX Settembre',
      'Via della Repubblica',
      'Via dei Mille',
    ],
  },
  {
    code: 'FR',
    name: { en: 'France', it: 'Francia' },
    idBase: 2000,
    count: 120,
    phonePrefix: '+33',
    cities: [
      {
        en: 'Paris',
        it: 'Parigi',
        lat: 48.8566,
        lon: 2.3522,
        stateCode: 'IDF',
        stateName: 'Île-de-France',
        zip: '750',
        phoneArea: '1',
      },
      {
        en: 'Nice',
        it: 'Nizza',
        lat: 43.7102,
        lon: 7.262,
        stateCode: 'PAC',
        stateName: "Provence-Alpes-Côte d'Azur",
        zip: '060',
        phoneArea: '4',
      },
      {
        en: 'Lyon',
        it: 'Lione',
        lat: 45.764,
        lon: 4.8357,
        stateCode: 'ARA',
        stateName: 'Auvergne-Rhône-Alpes',
        zip: '690',
        phoneArea: '4',
      },
      {
        en: 'Marseille',
        it: 'Marsiglia',
        lat: 43.2965,
        lon: 5.3698,
        stateCode: 'PAC',
        stateName: "Provence-Alpes-Côte d'Azur",
        zip: '130',
        phoneArea: '4',
      },
      {
        en: 'Bordeaux',
        it: 'Bordeaux',
        lat: 44.8378,
        lon: -0.5792,
        stateCode: 'NAQ',
        stateName: 'Nouvelle-Aquitaine',
        zip: '330',
        phoneArea: '5',
      },
    ],
    prefixes: ['Hôtel', 'Grand Hôtel', 'Hôtel Le', 'Résidence', 'Maison'],
    words: [
      'Lumière',
      'Beau Rivage',
      'du Parc',
      'Saint-Louis',
      'Mistral',
      'des Arts',
      'Bellevue',
      'Royal',
      'Concorde',
      'Rivoli',
    ],
    streets: [
      'Rue de la Paix',
      'Boulevard Victor Hugo',
      'Avenue Foch',
      'Rue Saint-Honoré',
      'Quai des Fleurs',
      'Rue Lafayette',
    ],
  },
  {
    code: 'ES',
    name: { en: 'Spain', it: 'Spagna' },
    idBase: 3000,
    count: 90,
    phonePrefix: '+34',
    cities: [
      {
        en: 'Madrid',
        it: 'Madrid',
        lat: 40.4168,
        lon: -3.7038,
        stateCode: 'MD',
        stateName: 'Comunidad de Madrid',
        zip: '280',
        phoneArea: '91',
      },
      {
        en: 'Barcelona',
        it: 'Barcellona',
        lat: 41.3874,
        lon: 2.1686,
        stateCode: 'CT',
        stateName: 'Cataluña',
        zip: '080',
        phoneArea: '93',
      },
      {
        en: 'Seville',
        it: 'Siviglia',
        lat: 37.3891,
        lon: -5.9845,
        stateCode: 'AN',
        stateName: 'Andalucía',
        zip: '410',
        phoneArea: '95',
      },
      {
        en: 'Valencia',
        it: 'Valencia',
        lat: 39.4699,
        lon: -0.3763,
        stateCode: 'VC',
        stateName: 'Comunitat Valenciana',
        zip: '460',
        phoneArea: '96',
      },
      {
        en: 'Málaga',
        it: 'Malaga',
        lat: 36.7213,
        lon: -4.4214,
        stateCode: 'AN',
        stateName: 'Andalucía',
        zip: '290',
        phoneArea: '95',
      },
    ],
    prefixes: ['Hotel', 'Gran Hotel', 'Hostal', 'Parador', 'Casa'],
    words: [
      'Sol',
      'del Mar',
      'Alhambra',
      'Plaza Mayor',
      'Las Palmas',
      'Catedral',
      'Miramar',
      'Real',
      'Goya',
      'La Giralda',
    ],
    streets: [
      'Calle Mayor',
      'Gran Vía',
      'Paseo del Prado',
      'Calle de Alcalá',
      'Avenida de la Constitución',
      'Calle Real',
    ],
  },
  {
    code: 'GB',
    name: { en: 'United Kingdom', it: 'Regno Unito' },
    idBase: 4000,
    count: 60,
    phonePrefix: '+44',
    cities: [
      {
        en: 'London',
        it: 'Londra',
        lat: 51.5072,
        lon: -0.1276,
        stateCode: 'ENG',
        stateName: 'England',
        zip: 'W1',
        phoneArea: '20',
      },
      {
        en: 'Edinburgh',
        it: 'Edimburgo',
        lat: 55.9533,
        lon: -3.1883,
        stateCode: 'SCT',
        stateName: 'Scotland',
        zip: 'EH1',
        phoneArea: '131',
      },
      {
        en: 'Manchester',
        it: 'Manchester',
        lat: 53.4808,
        lon: -2.2426,
        stateCode: 'ENG',
        stateName: 'England',
        zip: 'M1',
        phoneArea: '161',
      },
      {
        en: 'Bath',
        it: 'Bath',
        lat: 51.3781,
        lon: -2.359,
        stateCode: 'ENG',
        stateName: 'England',
        zip: 'BA1',
        phoneArea: '1225',
      },
    ],
    prefixes: ['The', 'The Grand', 'Hotel', 'The Royal', 'Inn'],
    words: [
      'Kensington',
      'Regent',
      'Waverley',
      'Crown',
      'Victoria',
      'Albion',
      'Thistle',
      'Windsor',
      'Georgian',
      'Park Lane',
    ],
    streets: [
      'High Street',
      'Station Road',
      'Church Lane',
      'Victoria Road',
      'King Street',
      'Queen Street',
    ],
  },
];

/** The countries the catalogue covers. */
export const COUNTRY_CODES: readonly string[] = COUNTRIES.map((c) => c.code);

/** Page size of `GET /properties/content/`, fixed by the seed. */
export const PAGE_SIZE = 200;

/** An active Italian property; the default of `scenarioOptionId`. */
export const DEFAULT_PROPERTY_ID = 1001;

/** The compact, language-free record each property is derived from. */
export interface PropertyBase {
  readonly id: number;
  readonly country: CountryDef;
  readonly city: CityDef;
  readonly name: string;
  readonly category: Localized;
  readonly stars: number | null;
  readonly address: string;
  readonly zipcode: string;
  readonly phone: string;
  readonly latitude: number;
  readonly longitude: number;
  /** Overall, cleanliness, service, comfort, condition, location, neighborhood, amenities. */
  readonly ratings: readonly number[] | null;
  readonly ratingCount: number | null;
  readonly amenityIds: readonly string[];
  readonly themeIds: readonly string[];
  readonly floors: number;
  readonly yearBuilt: number;
  readonly yearRenovated: number | null;
  readonly totalRooms: number;
  readonly imageCount: number;
  /** Base price of one night of a standard room for two adults, in cents. */
  readonly baseNightCents: number;
  /** Inactive in the catalogue as shipped (404 on detail, absent from the list). */
  readonly initiallyInactive: boolean;
}

const byCategoryName = (en: string): Localized => {
  const found = CATEGORIES.find((c) => c.en === en);
  if (!found) throw new Error(`unknown category ${en}`);
  return found;
};

function categoryFor(prefix: string): Localized {
  if (/B&B|Maison|Casa/.test(prefix)) return byCategoryName('Bed and breakfast');
  if (/Residenza|Résidence/.test(prefix)) return byCategoryName('Apartment');
  if (/Resort|Parador/.test(prefix)) return byCategoryName('Resort');
  if (/Hostal/.test(prefix)) return byCategoryName('Hostel');
  if (/Locanda|Inn/.test(prefix)) return byCategoryName('Guest house');
  return byCategoryName('Hotel');
}

function starsFor(category: Localized, roll: number): number | null {
  switch (category.en) {
    case 'Apartment':
      // Apartments carry no star rating: content consumers must cope with `stars: null`.
      return null;
    case 'Bed and breakfast':
    case 'Guest house':
      return 2 + (roll % 2);
    case 'Hostel':
      return 1 + (roll % 2);
    case 'Resort':
      return 4 + (roll % 2);
    default:
      return 2 + (roll % 4);
  }
}

function pick<T>(items: readonly T[], index: number): T {
  const item = items[index % items.length];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function subset(ids: readonly string[], seed: number, min: number): string[] {
  const prng = createPrng(seed);
  const chosen = ids.filter(() => prng.next() < 0.5);
  for (const id of ids) {
    if (chosen.length >= min) break;
    if (!chosen.includes(id)) chosen.push(id);
  }
  return ids.filter((id) => chosen.includes(id));
}

function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

function buildProperty(country: CountryDef, index: number): PropertyBase {
  const id = country.idBase + index + 1;
  const prng = createPrng(hashString(`${country.code}:${index}`));
  const city = pick(country.cities, prng.int(country.cities.length));
  const prefix = pick(country.prefixes, prng.int(country.prefixes.length));
  const word = pick(country.words, prng.int(country.words.length));
  const category = categoryFor(prefix);
  const stars = starsFor(category, prng.int(1000));
  const noRatings = index % 23 === 5;
  const overall = 6 + prng.next() * 3.8;
  const ratings = noRatings
    ? null
    : Array.from({ length: 8 }, (_, i) =>
        i === 0
          ? round(overall, 1)
          : round(Math.min(10, Math.max(1, overall + prng.normal(0, 0.5))), 1),
      );
  const yearBuilt = 1700 + prng.int(320);
  const renovated = prng.next() < 0.6 ? Math.min(2025, yearBuilt + 10 + prng.int(150)) : null;
  return {
    id,
    country,
    city,
    name: `${prefix} ${word}`,
    category,
    stars,
    address: `${pick(country.streets, prng.int(country.streets.length))} ${1 + prng.int(180)}`,
    zipcode: /^\d+$/.test(city.zip)
      ? `${city.zip}${String(prng.int(100)).padStart(2, '0')}`
      : `${city.zip} ${1 + prng.int(9)}AB`,
    phone: `${country.phonePrefix} ${city.phoneArea} ${String(1_000_000 + prng.int(8_999_999))}`,
    latitude: round(city.lat + (prng.next() - 0.5) * 0.06, 6),
    longitude: round(city.lon + (prng.next() - 0.5) * 0.06, 6),
    ratings,
    ratingCount: noRatings ? null : 10 + prng.int(4000),
    amenityIds: subset(
      PROPERTY_AMENITIES.map((a) => a.id),
      hashString(`amenities:${id}`),
      4,
    ),
    themeIds: subset(
      THEMES.map((t) => t.id),
      hashString(`themes:${id}`),
      1,
    ).slice(0, 3),
    floors: 1 + prng.int(12),
    yearBuilt,
    yearRenovated: renovated,
    totalRooms: 6 + prng.int(300),
    imageCount: 3 + prng.int(4),
    baseNightCents: (45 + (stars ?? 3) * 28 + prng.int(40)) * 100,
    // A few inactive properties per country: present in the catalogue, invisible through the API.
    initiallyInactive: index % 50 === 7,
  };
}

const ALL: readonly PropertyBase[] = COUNTRIES.flatMap((country) =>
  Array.from({ length: country.count }, (_, i) => buildProperty(country, i)),
);
const BY_ID = new Map<number, PropertyBase>(ALL.map((p) => [p.id, p]));
const BY_COUNTRY = new Map<string, readonly PropertyBase[]>(
  COUNTRIES.map((c) => [c.code, ALL.filter((p) => p.country.code === c.code)]),
);

/** The property with this id, active or not; `undefined` when the catalogue has no such id. */
export function findProperty(id: number): PropertyBase | undefined {
  return BY_ID.get(id);
}

/** Every property of a country in id order, active or not. */
export function propertiesOf(countryCode: string): readonly PropertyBase[] {
  return BY_COUNTRY.get(countryCode) ?? [];
}

/** Every property of the catalogue, active or not. */
export function allProperties(): readonly PropertyBase[] {
  return ALL;
}

/** Ids inactive in the catalogue as shipped. */
export const INITIALLY_INACTIVE_PROPERTY_IDS: readonly number[] = ALL.filter(
  (p) => p.initiallyInactive,
).map((p) => p.id);

const RATING_FIELDS = [
  'guest_rating_overall',
  'guest_rating_cleanliness',
  'guest_rating_service',
  'guest_rating_comfort',
  'guest_rating_condition',
  'guest_rating_location',
  'guest_rating_neighborhood',
  'guest_rating_amenities',
] as const;

function imageUrl(p: PropertyBase, n: number): string {
  return `https://images.simulator.invalid/properties/${p.id}/${n}.jpg`;
}

/** An item of the property list (`GET /properties/content/`): the summary fields of a detail. */
export function propertySummary(p: PropertyBase, language: Language): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    stars: p.stars,
    pic: imageUrl(p, 1),
    city: p.city[language],
    address: p.address,
    state_code: p.city.stateCode,
    state_name: p.city.stateName,
    zipcode: p.zipcode,
    category: p.category[language],
    phone_nr: p.phone,
    coordinates: { latitude: p.latitude, longitude: p.longitude },
    country: { code: p.country.code, name: p.country.name[language] },
    guest_rating_count: p.ratingCount,
    guest_rating_overall: p.ratings?.[0] ?? null,
  };
}

function descriptions(p: PropertyBase, language: Language): Record<string, string | null> {
  const city = p.city[language];
  const stars =
    p.stars === null ? '' : language === 'en' ? `${p.stars}-star ` : `${p.stars} stelle `;
  if (language === 'it') {
    return {
      headline: `${p.name}, ${p.category.it.toLowerCase()} ${stars}a ${city}`.replace(/\s+/g, ' '),
      location: `${p.name} si trova in ${p.address}, a pochi minuti dal centro di ${city}.`,
      rooms: `${p.totalRooms} camere climatizzate con Wi-Fi gratuito e TV a schermo piatto.`,
      dining: p.amenityIds.includes('p2')
        ? 'Il ristorante serve cucina locale e la colazione ogni mattina.'
        : 'La colazione è servita ogni mattina nella sala comune.',
      amenities: `Servizi: ${p.amenityIds.map((id) => PROPERTY_AMENITIES.find((a) => a.id === id)?.it ?? id).join(', ')}.`,
      attractions: `Le principali attrazioni di ${city} sono raggiungibili a piedi o con i mezzi pubblici.`,
      business_amenities: p.amenityIds.includes('p14')
        ? 'Sale riunioni attrezzate su richiesta.'
        : null,
      renovations:
        p.yearRenovated === null ? null : `Struttura ristrutturata nel ${p.yearRenovated}.`,
    };
  }
  return {
    headline: `${p.name}, a ${stars}${p.category.en.toLowerCase()} in ${city}`.replace(/\s+/g, ' '),
    location: `${p.name} is located at ${p.address}, a few minutes from the centre of ${city}.`,
    rooms: `${p.totalRooms} air-conditioned rooms with free Wi-Fi and a flat-screen TV.`,
    dining: p.amenityIds.includes('p2')
      ? 'The restaurant serves local cuisine and breakfast every morning.'
      : 'Breakfast is served every morning in the lounge.',
    amenities: `Amenities: ${p.amenityIds.map((id) => PROPERTY_AMENITIES.find((a) => a.id === id)?.en ?? id).join(', ')}.`,
    attractions: `The main sights of ${city} are within walking distance or a short ride away.`,
    business_amenities: p.amenityIds.includes('p14') ? 'Equipped meeting rooms on request.' : null,
    renovations: p.yearRenovated === null ? null : `Renovated in ${p.yearRenovated}.`,
  };
}

function byIds(items: readonly Localized[], ids: readonly string[], language: Language) {
  return items.filter((i) => ids.includes(i.id)).map((i) => localize(i, language));
}

/** The property detail record (`GET /properties/content/{hotel_id}`). */
export function propertyDetail(p: PropertyBase, language: Language): Record<string, unknown> {
  const ratings: Record<string, number | null> = {};
  RATING_FIELDS.forEach((field, i) => (ratings[field] = p.ratings?.[i] ?? null));
  const attributeName = (id: string) => HOTEL_ATTRIBUTES.find((a) => a.id === id)?.[language] ?? id;
  const attributes: { id: number; name: string; value: number | null }[] = [
    { id: 1, name: attributeName('1'), value: p.floors },
    { id: 2, name: attributeName('2'), value: p.yearBuilt },
    { id: 3, name: attributeName('3'), value: p.totalRooms },
    { id: 4, name: attributeName('4'), value: 14 },
    { id: 5, name: attributeName('5'), value: 11 },
  ];
  // "Pets allowed" is a flag with no value: the attribute `value` may be null.
  if (p.amenityIds.includes('p9'))
    attributes.push({ id: 6, name: attributeName('6'), value: null });
  if (p.yearRenovated !== null)
    attributes.push({ id: 7, name: attributeName('7'), value: p.yearRenovated });
  const summary = propertySummary(p, language);
  return {
    ...summary,
    ...ratings,
    descriptions: descriptions(p, language),
    images: Array.from({ length: p.imageCount }, (_, i) => ({
      url: imageUrl(p, i + 1),
      caption: i === 0 ? (language === 'en' ? 'Facade' : 'Facciata') : `${p.name} ${i + 1}`,
      main: i === 0,
    })),
    themes: byIds(THEMES, p.themeIds, language),
    attributes,
    amenities: byIds(PROPERTY_AMENITIES, p.amenityIds, language),
    rooms: (['std', 'sup'] as const).map((code) => {
      const room = ROOM_TYPES[code];
      return {
        id: code,
        name: room.name[language],
        max_occupancy: room.maxAdults,
        bed_groups: room.bedGroups,
        amenities: byIds(ROOM_AMENITIES, room.amenities, language),
      };
    }),
  };
}
