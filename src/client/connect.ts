/**
 * Connects a Temporal client the way every process of this project must: same address,
 * namespace and data converter (payload encryption) as the workers.
 */
import { Client, Connection } from '@temporalio/client';
import { createDataConverter } from '../codec/data-converter';
import type { Config } from '../config';
import { BookingClient } from './booking-client';

export interface ConnectedClient {
  readonly connection: Connection;
  readonly client: Client;
  readonly bookings: BookingClient;
  close(): Promise<void>;
}

/** Connects to Temporal from a loaded {@link Config}. */
export async function connectBookingClient(config: Config): Promise<ConnectedClient> {
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({
    connection,
    namespace: config.temporal.namespace,
    dataConverter: createDataConverter(config.encryption),
  });
  const bookings = new BookingClient({
    client,
    taskQueue: config.temporal.taskQueue,
    orderIdField: config.orderIdField,
  });
  return { connection, client, bookings, close: () => connection.close() };
}
