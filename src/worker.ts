/**
 * `npm run worker`: a booking worker on the `hotel-booking` task queue, configured only by the
 * environment (see src/config.ts), validated at start with a message per bad or missing value.
 */
import { NativeConnection } from '@temporalio/worker';
import { createBookingWorker } from './build-worker';
import { createDataConverter } from './codec/data-converter';
import { ConfigError, loadConfig } from './config';
import { HotelApiClient } from './hotel-api';

async function main(): Promise<void> {
  const config = loadConfig();
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const hotelApi = new HotelApiClient(config.hotelApi);
  const worker = await createBookingWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    hotelApi,
    orderIdField: config.orderIdField,
    dataConverter: createDataConverter(config.encryption),
  });
  console.log(
    `Worker polling task queue '${config.temporal.taskQueue}' on ${config.temporal.address} ` +
      `(namespace ${config.temporal.namespace}), supplier ${config.hotelApi.baseUrl}`,
  );
  try {
    await worker.run();
  } finally {
    await hotelApi.close();
    await connection.close();
  }
  console.log('Worker stopped.');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
