/**
 * `guardBooking`, id `guard-<orderId>`: the guard (../guard/) in a workflow of its own, as earlier
 * versions started it; only its home differs (writer, outbox, first read, `BookingOutcome`).
 */
import { CancellationScope } from '@temporalio/workflow';
import type { EarlierGuardInput } from '../../activities/guard-start';
import type { GuardResult } from '../../shared/guard-contract';
import { BookingOutcomeKey } from '../../shared/search-attributes';
import { SearchAttributeWriter } from '../search-attribute-writer';
import { cancelledFromTemporal, checkedGuardInput, guardToTheEnd } from '../guard/guard';
import { registerGuardHandlers } from '../guard/guard-messages';
import { guardOutbox } from '../guard/guard-home';
import { GuardRun, type GuardHome } from '../guard/guard-run';
import { readBooking } from '../guard/guard-steps';
import { EachWriteSearchAttributes } from './each-write';

export async function guardBooking(input: EarlierGuardInput): Promise<GuardResult> {
  // The flag is this home's, not the guard's: continue-as-new carries it on in `input`.
  const { startedInOneTask, ...guardInput } = input;
  const params = checkedGuardInput(guardInput);
  const oneTask = startedInOneTask === true;
  const home: GuardHome = {
    searchAttributes: oneTask ? new SearchAttributeWriter() : new EachWriteSearchAttributes(),
    events: guardOutbox(params),
    async readTerms(run) {
      // One local activity at a time: an announcement in flight first.
      if (oneTask) await run.events?.flushed();
      return readBooking(run, 'Terms of the confirmed booking', oneTask);
    },
    closing: (run) =>
      run.searchAttributes.write([{ key: BookingOutcomeKey, value: run.known.phase }]),
  };
  const run = new GuardRun(params, home);
  registerGuardHandlers(run);
  // A cancellation of this workflow from Temporal is a cancel request like the update's (rule 8).
  CancellationScope.current().cancelRequested.catch(() => cancelledFromTemporal(run));
  return CancellationScope.nonCancellable(() => guardToTheEnd(run, input));
}
