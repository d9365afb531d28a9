/**
 * What Temporal holds of an order's earlier `bookRoom` runs and of its guard, for the check that
 * keeps one supplier booking per order (workflows/booking/earlier-runs-decision.ts). Runs are
 * listed through visibility, then each is read with describe (its own record, not the eventually
 * consistent visibility store). Ids, phases, outcomes and prices only: no personal data.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import type { OrderResult, SupplierPrice } from '../shared/booking-contract';
import { bookingWorkflowId } from '../shared/booking-values';
import { defined } from '../shared/defined';
import { guardWorkflowId } from '../shared/guard-values';
import {
  BookingPhaseKey,
  inEveryDivision,
  SupplierBookingIdKey,
} from '../shared/search-attributes';

/** An earlier run of `booking-<orderId>` as Temporal holds it (no personal data). */
export interface EarlierRun {
  readonly runId: string;
  /** Temporal's execution status: `COMPLETED`, `TERMINATED`, `TIMED_OUT`, `FAILED`, … */
  readonly status: string;
  readonly startTime: string;
  /** The `BookingPhase` search attribute when the run stopped. */
  readonly phase?: string;
  /** The `SupplierBookingId` search attribute. */
  readonly bookingId?: number;
  /** The result of a run that completed. */
  readonly result?: {
    readonly outcome: string;
    readonly bookingId?: number;
    readonly supplierStatus?: string;
    readonly price?: SupplierPrice;
    readonly errorCode?: string;
    /** How the order's guard ended, when the run guarded it to its end (`CHECKED_OUT`, …). */
    readonly guardPhase?: string;
  };
  /** Set when the run was listed but its record could not be read (e.g. removed by retention). */
  readonly unreadable?: string;
}

/** An earlier version's guard of the order (`guard-<orderId>`), while still on record. */
export interface EarlierGuard {
  readonly status: string;
  readonly bookingId?: number;
}

export interface EarlierRuns {
  /** Newest first or in any order: the decision sorts by start time. */
  readonly runs: readonly EarlierRun[];
  readonly guard?: EarlierGuard;
  /**
   * Whether this deployment pushes order events (`ORDER_EVENTS_URL` set). Read here, at the
   * run's start, so the choice is recorded in its history and replays the same on any worker.
   */
  readonly orderEvents?: boolean;
}

export interface EarlierRunsInput {
  readonly orderId: string;
  /** The asking run: it is left out, and visibility must show it before the list is trusted. */
  readonly runId: string;
}

/** How long one attempt waits for visibility to show the asking run before it fails and retries. */
const VISIBILITY_WAIT_MS = 5_000;

export function createEarlierRunsActivities(deps: { readonly orderEvents?: boolean } = {}) {
  return {
    /**
     * `onFirstList` (for the caller in this process, never sent by Temporal) hears how many other
     * runs the first list shows, before the list is complete (local-reads.ts).
     */
    async earlierRunsOfOrder(
      input: EarlierRunsInput,
      onFirstList?: (otherRuns: number) => void,
    ): Promise<EarlierRuns> {
      const client = Context.current().client;
      const workflowId = bookingWorkflowId(input.orderId);
      // The guard is read from its own record (not visibility), beside the list.
      const [ids, guard] = await Promise.all([
        listRuns(client, workflowId, input.runId, onFirstList),
        readGuard(client, input.orderId),
      ]);
      const runs = await Promise.all(
        [...new Set(ids)]
          .filter((runId) => runId !== input.runId)
          .map((runId) => readRun(client, workflowId, runId)),
      );
      return {
        runs,
        ...(guard ? { guard } : {}),
        ...(deps.orderEvents ? { orderEvents: true } : {}),
      };
    },
  };
}

export type EarlierRunsActivities = ReturnType<typeof createEarlierRunsActivities>;

/**
 * The run ids visibility lists for `workflowId`, open and closed, once it lists the asking run (a
 * list without it may miss a run started just before it); not within {@link VISIBILITY_WAIT_MS}:
 * a retryable failure. One query ({@link everyRunQuery}) where the server serves it; else the
 * list APIs by workflow id, open then closed, which every server serves (time-skipping included).
 */
async function listRuns(
  client: Client,
  workflowId: string,
  runId: string,
  onFirstList?: (otherRuns: number) => void,
): Promise<string[]> {
  const until = Date.now() + VISIBILITY_WAIT_MS;
  let byQuery = true;
  let first = onFirstList;
  const heard = (ids: readonly string[]) => {
    first?.(ids.filter((id) => id !== runId).length);
    first = undefined;
  };
  // Visibility is written a few ms after the start: a short first wait, then doubling. The closed
  // list is read only once the open one shows the asking run (in that order: the earlier runs'
  // closes were written before it).
  for (let delay = 10; ; delay = Math.min(delay * 2, 500)) {
    const all = byQuery ? await queried(client, workflowId) : undefined;
    if (all === undefined) {
      byQuery = false;
      const open = await listed(client, 'open', workflowId);
      if (open.includes(runId)) return [...open, ...(await listed(client, 'closed', workflowId))];
    } else if (all.includes(runId)) {
      return all;
    } else {
      heard(all);
    }
    if (Date.now() + delay > until) {
      throw ApplicationFailure.retryable(
        `Visibility does not list run ${runId} of ${workflowId} yet`,
        'VISIBILITY_BEHIND',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/**
 * The visibility query for every run of `workflowId`, in every division (a run whose starter set
 * one is not left out). On SQLite the workflow id's index serves it: 0.7 ms of server CPU per list
 * at 15,000 rows, 10–12 ms with the default filter (bench/experiments/visibility-list-cost.ts).
 */
export function everyRunQuery(workflowId: string): string {
  return inEveryDivision(`WorkflowId = '${workflowId.replace(/'/g, "\\'")}'`);
}

/**
 * Every run of `workflowId` in one visibility query; undefined where the server has no query
 * (gRPC UNIMPLEMENTED, 12: the time-skipping test server).
 */
async function queried(client: Client, workflowId: string): Promise<string[] | undefined> {
  try {
    return await runIdsOfPages((nextPageToken) =>
      client.workflowService.listWorkflowExecutions({
        namespace: client.options.namespace,
        pageSize: 100,
        query: everyRunQuery(workflowId),
        ...(nextPageToken ? { nextPageToken } : {}),
      }),
    );
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 12) return undefined;
    throw err;
  }
}

function listed(client: Client, which: 'open' | 'closed', workflowId: string): Promise<string[]> {
  const service = client.workflowService;
  return runIdsOfPages((nextPageToken) => {
    const request = {
      namespace: client.options.namespace,
      maximumPageSize: 100,
      executionFilter: { workflowId },
      startTimeFilter: { earliestTime: msToTs(0), latestTime: msToTs(Date.now() + 3_600_000) },
      ...(nextPageToken ? { nextPageToken } : {}),
    };
    return which === 'open'
      ? service.listOpenWorkflowExecutions(request)
      : service.listClosedWorkflowExecutions(request);
  });
}

/** The run ids on every page `read` returns, from the first (no token) to the last. */
async function runIdsOfPages(
  read: (
    nextPageToken: Uint8Array | undefined,
  ) => Promise<temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse>,
): Promise<string[]> {
  const ids: string[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await read(nextPageToken);
    for (const e of page.executions ?? []) if (e.execution?.runId) ids.push(e.execution.runId);
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return ids;
}

async function readRun(client: Client, workflowId: string, runId: string): Promise<EarlierRun> {
  const handle = client.workflow.getHandle(workflowId, runId, { followRuns: false });
  let description;
  try {
    description = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      return { runId, status: 'UNKNOWN', startTime: '', unreadable: 'no record of the run' };
    }
    throw err;
  }
  const run: EarlierRun = defined({
    runId,
    status: description.status.name,
    startTime: description.startTime.toISOString(),
    phase: description.typedSearchAttributes.get(BookingPhaseKey),
    bookingId: description.typedSearchAttributes.get(SupplierBookingIdKey),
  });
  if (description.status.name !== 'COMPLETED') return run;
  let result: OrderResult;
  try {
    result = (await handle.result()) as OrderResult;
  } catch (err) {
    const why = err instanceof Error ? err.name : 'unknown error';
    return { ...run, unreadable: `its result cannot be read: ${why}` };
  }
  // A guarded order ends as its guard says: a booking cancelled after CONFIRMED is CANCELLED.
  const cancelledByGuard =
    result.guard?.phase === 'CANCELLED' || result.guard?.phase === 'CANCELLED_BY_SUPPLIER';
  return {
    ...run,
    result: defined({
      outcome: cancelledByGuard ? 'CANCELLED' : result.outcome,
      bookingId: result.bookingId,
      supplierStatus: result.guard?.state.supplierStatus ?? result.supplierStatus,
      price: result.price,
      errorCode: result.error?.code,
      guardPhase: result.guard?.phase,
    }),
  };
}

async function readGuard(client: Client, orderId: string): Promise<EarlierGuard | undefined> {
  try {
    const description = await client.workflow.getHandle(guardWorkflowId(orderId)).describe();
    return defined({
      status: description.status.name,
      bookingId: description.typedSearchAttributes.get(SupplierBookingIdKey),
    });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}
