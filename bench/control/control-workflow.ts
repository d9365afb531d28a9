import { proxyActivities } from '@temporalio/workflow';
import type { ControlActivities } from './control-activities';

const { noop } = proxyActivities<ControlActivities>({ startToCloseTimeout: '10s' });

/**
 * The benchmark's control: one workflow, one no-op activity. Measures what the engine costs with
 * no supplier and no logic, beside `bookRoom` on the same server in the same run.
 */
export async function controlNoop(input: string): Promise<string> {
  return noop(input);
}

/**
 * The floor of a booking: one workflow, two no-op activities one after the other, the shape of
 * `bookRoom`'s price check and booking call with nothing in them.
 */
export async function controlTwoStep(input: string): Promise<string> {
  return noop(await noop(input));
}
