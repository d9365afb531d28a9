/** Verdicts of `doctor namespace` on the workers polling the product's task queues. Pure. */
import { type CheckResult, resultsOf } from './check-result';

/** A poller last seen longer ago than this has stopped (live ones poll again within ~70 s). */
export const POLLER_FRESH_MS = 2 * 60_000;

/** One poller as DescribeTaskQueue lists it. */
export interface Poller {
  readonly identity: string;
  /** When it last polled, epoch ms (undefined: not reported). */
  readonly lastAccessMs?: number;
}

export interface PollersFacts {
  readonly taskQueue: string;
  /** TEMPORAL_TASK_QUEUE: the booking task queue (the order events' is named after it). */
  readonly bookingTaskQueue: string;
  readonly namespace: string;
  readonly workflow: readonly Poller[];
  readonly activity: readonly Poller[];
  readonly nowMs: number;
}

const fresh = (p: readonly Poller[], nowMs: number) =>
  p.filter((x) => x.lastAccessMs === undefined || nowMs - x.lastAccessMs <= POLLER_FRESH_MS);

function lastSeen(p: readonly Poller[], nowMs: number): string {
  const last = Math.max(...p.map((x) => x.lastAccessMs ?? 0));
  return p.length === 0 ? 'none seen' : `last seen ${Math.round((nowMs - last) / 60_000)} min ago`;
}

function identities(p: readonly Poller[]): string {
  const ids = [...new Set(p.map((x) => x.identity))];
  return ids.length <= 3
    ? ids.join(', ')
    : `${ids.slice(0, 3).join(', ')} and ${ids.length - 3} more`;
}

/** `booking-workers`, `order-events-workers`: a worker polls workflow and activity tasks now. */
export function pollersVerdict(
  name: 'booking-workers' | 'order-events-workers',
  facts: PollersFacts,
  required: { readonly yes: boolean; readonly why: string },
): CheckResult {
  const { ok, fail } = resultsOf(name);
  const q = `task queue '${facts.taskQueue}'`;
  const wf = fresh(facts.workflow, facts.nowMs);
  const act = fresh(facts.activity, facts.nowMs);
  const start = `Start workers with TEMPORAL_NAMESPACE=${facts.namespace} TEMPORAL_TASK_QUEUE=${facts.bookingTaskQueue}`;
  const breaks =
    name === 'booking-workers'
      ? `bookings are accepted and then wait: nothing runs them. ${start}`
      : `order events are not delivered (they wait, and the failing view fills). ${start} and ORDER_EVENTS_URL set (their second worker polls this queue)`;
  if (wf.length > 0 && act.length > 0) {
    return ok(
      `${new Set([...wf, ...act].map((p) => p.identity)).size} worker(s) poll ${q}: ${identities([...wf, ...act])}`,
    );
  }
  if (wf.length === 0 && act.length === 0) {
    const seen = `no worker polls ${q} in namespace '${facts.namespace}' (${lastSeen([...facts.workflow, ...facts.activity], facts.nowMs)})`;
    return required.yes ? fail(seen, breaks) : ok(`${seen}: ${required.why}`);
  }
  const missing = wf.length === 0 ? 'workflow' : 'activity';
  return fail(
    `${q} has ${missing === 'workflow' ? 'activity' : 'workflow'} pollers (${identities(wf.length === 0 ? act : wf)}) but none for ${missing} tasks`,
    `${missing === 'workflow' ? 'workflows' : 'supplier calls'} of this queue do not run: run the product's worker (npm run worker, or the image's worker) rather than a partial one`,
  );
}
