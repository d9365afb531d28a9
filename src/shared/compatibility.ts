/**
 * Every earlier version the workflow code still serves, in one registry, as the SDK keeps its own
 * compatibility flags (sdk-typescript `packages/workflow/src/flags.ts`): each `patched()` id and
 * marker the workflows ask, each workflow type kept only for runs an earlier version started —
 * why it exists, the code that exists only for it, and the visibility query that must count 0
 * (and the namespace's retention have passed since the last such run closed) before that code is
 * deleted (docs/contributing.md, "Changing a workflow: the one rule"). Workflow code takes its
 * patch ids from here; docs/earlier-versions.md is checked against it by
 * test/house/compatibility.test.ts; `hotel-booking doctor namespace` counts the runs its
 * countable queries find. Pure data: no imports.
 */

/** `patched()` ids and markers, by the name the code uses. */
export const Patch = {
  /** Written first by every run of today's shape: its booking call is marked. */
  BOOKING_CALL_MARKED: 'booking-call-marked',
  /** Written first by the runs of the shape before (one order, one workflow; call unmarked). */
  ONE_ORDER_ONE_WORKFLOW: 'one-order-one-workflow',
  /** The input rules as the contract publishes them (a reserved field refused at the check). */
  CONTRACT_RULES_AS_PUBLISHED: 'contract-rules-as-published',
  /** One decision per order id: a decided order answered, a closed order's booking cancelled. */
  ONE_DECISION_PER_ORDER: 'one-decision-per-order',
  /** Earlier shape: one workflow task per step; stands for the four patches before it. */
  ONE_TASK_PER_STEP: 'one-task-per-step',
  /** Earlier shape: the input rules across fields. */
  INPUT_RULES_ACROSS_FIELDS: 'input-rules-across-fields',
  /** Earlier shape: the earlier runs checked before the first supplier call. */
  EARLIER_RUNS_CHECKED: 'earlier-runs-checked',
  /** Earlier shape: cancellations as a `cancelBooking` child. */
  CANCEL_AS_CHILD_WORKFLOW: 'cancel-as-child-workflow',
  /** Earlier shape: the guard started once CONFIRMED (a workflow of its own). */
  GUARD_AFTER_CONFIRMED: 'guard-after-confirmed',
} as const;
export type Patch = (typeof Patch)[keyof typeof Patch];

/** The placeholder of a query that needs the deploy time of the version that made the change. */
export const DEPLOYED_AT = '<when this version was deployed>';

const EARLIER_BOOK_ROOM = `WorkflowType = 'bookRoom' AND ExecutionStatus = 'Running' AND StartTime < '${DEPLOYED_AT}'`;
const EARLIER_ORDERS = `WorkflowType IN ('bookRoom', 'bookRoomAndGuard') AND ExecutionStatus = 'Running' AND StartTime < '${DEPLOYED_AT}'`;

export interface CompatibilityEntry {
  /** The `patched()` id, the marker, or the workflow type. */
  readonly id: string;
  readonly kind: 'patch' | 'marker' | 'workflow-type' | 'public-name' | 'workflow-id';
  /** Why it exists: what the runs it serves did differently. */
  readonly why: string;
  /** The files and symbols that exist only for it (deleted with it). */
  readonly code: readonly string[];
  /**
   * The visibility query that must count 0, the namespace's retention after the last such run
   * closed, before the code goes; `null`: never (today's shape).
   */
  readonly deleteWhen: string | null;
}

export const COMPATIBILITY: readonly CompatibilityEntry[] = [
  {
    id: Patch.BOOKING_CALL_MARKED,
    kind: 'marker',
    why: "today's shape: the booking call has Temporal record that it leaves (createBookingMarked), so a timeout without the mark is sent again",
    code: [],
    deleteWhen: null,
  },
  {
    id: Patch.ONE_ORDER_ONE_WORKFLOW,
    kind: 'marker',
    why: 'runs of the shape before: one order, one workflow, the booking call unmarked (every timeout ambiguous)',
    code: [
      'createBooking in src/activities/booking.ts',
      'run.bookingCallMarked in src/workflows/booking/',
    ],
    deleteWhen: EARLIER_ORDERS,
  },
  {
    id: Patch.CONTRACT_RULES_AS_PUBLISHED,
    kind: 'patch',
    why: 'a direct start that sets the order id field is refused at the input check; runs before were refused only by the booking call',
    code: [
      'src/workflows/earlier-versions/input-rules.ts',
      'the earlier verdict of src/workflows/input-verdicts.ts',
    ],
    deleteWhen: EARLIER_ORDERS,
  },
  {
    id: Patch.ONE_DECISION_PER_ORDER,
    kind: 'patch',
    why: 'a decided order is answered, never booked again, and a cancel sent with a start waits for the earlier runs; runs before booked again after a decision without a booking',
    code: [
      'the old branch of reportEarlier in src/workflows/booking/earlier-runs.ts',
      'the old branch of cancel in src/workflows/booking/booking-messages.ts',
    ],
    deleteWhen: EARLIER_ORDERS,
  },
  {
    id: Patch.ONE_TASK_PER_STEP,
    kind: 'patch',
    why: 'bookRoom without a marker (the first releases): one workflow task per step, the guard a workflow of its own',
    code: [
      'src/workflows/earlier-versions/book-room.ts',
      'src/workflows/earlier-versions/each-write.ts',
      'src/workflows/earlier-versions/guard-handover.ts',
    ],
    deleteWhen: EARLIER_BOOK_ROOM,
  },
  ...[
    Patch.INPUT_RULES_ACROSS_FIELDS,
    Patch.EARLIER_RUNS_CHECKED,
    Patch.CANCEL_AS_CHILD_WORKFLOW,
    Patch.GUARD_AFTER_CONFIRMED,
  ].map((id): CompatibilityEntry => ({
    id,
    kind: 'patch',
    why: 'bookRoom without a marker, before one-task-per-step (which stands for it in later runs)',
    code: ['src/workflows/earlier-versions/book-room.ts'],
    deleteWhen: EARLIER_BOOK_ROOM,
  })),
  {
    id: 'guardBooking',
    kind: 'workflow-type',
    why: 'the guard of earlier versions, a workflow of its own (id guard-<orderId>), until check-out',
    code: [
      'src/workflows/earlier-versions/guard-booking.ts',
      'src/client/earlier-versions.ts',
      'the guardBooking export of src/workflows/index.ts',
      'src/activities/guard-start.ts',
    ],
    deleteWhen: "WorkflowType = 'guardBooking' AND ExecutionStatus = 'Running'",
  },
  {
    id: 'order-events-<orderId>',
    kind: 'workflow-id',
    why: "the overflow's workflows (deliverOrderEvents) of earlier versions ran under this id, one character from the endpoint delivery's order-events:<task queue>; today's start as events-overflow-<orderId>, and an order's events go behind a running one of the earlier id first",
    code: [
      'earlierOrderEventsWorkflowId in src/order-events/contract/delivery.ts',
      'its uses in src/order-events/activities/overflow.ts and src/client/order-events-admin.ts',
    ],
    deleteWhen:
      "WorkflowType = 'deliverOrderEvents' AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH 'order-events-'",
  },
  {
    id: 'holder',
    kind: 'public-name',
    why: "the order state's holder as earlier versions named it (today booking, guard): in their workers' answers and in the results of orders they closed",
    code: ['inTodaysWords in src/client/earlier-versions.ts'],
    deleteWhen: `WorkflowType IN ('bookRoom', 'guardBooking') AND StartTime < '${DEPLOYED_AT}'`,
  },
];

/** The entries whose query the doctor can count as it stands (no deploy time to fill in). */
export function countableNow(): CompatibilityEntry[] {
  return COMPATIBILITY.filter((e) => e.deleteWhen !== null && !e.deleteWhen.includes(DEPLOYED_AT));
}
