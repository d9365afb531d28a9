/**
 * What every command runs with: the output mode, the configuration (loaded on first use, so
 * `--help` works with a broken environment), and connections opened only by the commands that
 * need them and closed once at the end.
 */
import { existsSync, statSync } from 'node:fs';
import { openSqliteCatalogueStore } from '../catalogue/sqlite-store';
import type { CatalogueStore } from '../catalogue/store';
import type { BookingClient } from '../client';
import { connectBookingClient, type ConnectedClient } from '../client';
import { assertSupplierCredentials, type Config } from '../config';
import { HotelApiClient } from '../hotel-api';
import { temporalUnreachable, type FailureContext } from './cli-errors';
import { probeTcp } from '../doctor/tcp-probe';

/** Where the tool writes; tests and the demo pass their own. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface CliContextOptions {
  readonly io: CliIo;
  /** Loads the configuration (src/config/ `loadConfig`, which alone reads the environment). */
  readonly loadConfig: () => Config;
  /** One JSON document on stdout instead of tables. */
  readonly json: boolean;
}

/** How long a query or an update may wait for a worker before the tool blames a missing one. */
export const WORKER_ANSWER_TIMEOUT_MS = 20_000;

export class CliContext {
  readonly io: CliIo;
  readonly json: boolean;
  readonly #loadConfig: () => Config;
  #config: Config | undefined;
  #temporal: ConnectedClient | undefined;
  #hotelApi: HotelApiClient | undefined;
  #catalogue: Promise<CatalogueStore | undefined> | undefined;

  constructor(options: CliContextOptions) {
    this.io = options.io;
    this.json = options.json;
    this.#loadConfig = options.loadConfig;
  }

  get config(): Config {
    if (!this.#config) {
      this.#config = this.#loadConfig();
      // The development payload key with a Temporal that is not local: said once, never silent.
      const warning = this.#config.encryption.warning;
      if (warning) this.io.stderr(`warning: ${warning}\n`);
    }
    return this.#config;
  }

  /** What error messages refer to, as far as it is known (never throws). */
  failureContext(): FailureContext {
    const c = this.#config;
    return c
      ? {
          temporalAddress: c.temporal.address,
          taskQueue: c.temporal.taskQueue,
          supplierUrl: c.hotelApi.baseUrl,
          payloadKeys: {
            ids: c.encryption.keys.map((k) => k.id),
            development: c.encryption.development,
          },
        }
      : {};
  }

  /** The connected Temporal client; fails fast (exit 3) when nothing listens at the address. */
  async temporal(): Promise<ConnectedClient> {
    if (this.#temporal) return this.#temporal;
    const { address } = this.config.temporal;
    const probe = await probeTcp(address);
    if (!probe.ok) throw temporalUnreachable(address, probe.reason);
    this.#temporal = await connectBookingClient(this.config);
    return this.#temporal;
  }

  async bookings(): Promise<BookingClient> {
    return (await this.temporal()).bookings;
  }

  /**
   * Runs a call that needs a worker to answer (a query or an update) with a deadline, so a
   * missing worker becomes a clear "is a worker running?" instead of a hang.
   */
  async withWorkerDeadline<T>(fn: () => Promise<T>, timeoutMs = WORKER_ANSWER_TIMEOUT_MS) {
    const { connection } = await this.temporal();
    return connection.withDeadline(Date.now() + timeoutMs, fn);
  }

  /** The supplier client, built from HOTEL_API_* on first use. */
  hotelApi(): HotelApiClient {
    if (!this.#hotelApi) {
      assertSupplierCredentials(this.config);
      this.#hotelApi = new HotelApiClient(this.config.hotelApi);
    }
    return this.#hotelApi;
  }

  /**
   * The local content catalogue (`CATALOGUE_DB_PATH`), opened read-only on first use;
   * `undefined` when the file does not exist yet (no `content sync` has run against it).
   */
  catalogueStore(): Promise<CatalogueStore | undefined> {
    this.#catalogue ??= (async () => {
      const path = this.config.catalogueDbPath;
      if (!existsSync(path) || statSync(path).size === 0) return undefined;
      return openSqliteCatalogueStore({ path, readonly: true });
    })();
    return this.#catalogue;
  }

  /** Writes the command's one result: JSON in `--json` mode, else the human rendering. */
  emit(json: unknown, human: () => string): void {
    if (this.json) this.io.stdout(`${JSON.stringify(json, null, 2)}\n`);
    else {
      const text = human();
      if (text) this.io.stdout(text.endsWith('\n') ? text : `${text}\n`);
    }
  }

  /** A progress or hint line for people: stdout in human mode, nothing in `--json` mode. */
  note(line: string): void {
    if (!this.json) this.io.stdout(`${line}\n`);
  }

  async close(): Promise<void> {
    await Promise.allSettled([
      this.#temporal?.close(),
      this.#hotelApi?.close(),
      this.#catalogue?.then((store) => store?.close()),
    ]);
  }
}
