// Every workflow the worker registers. Workflow code is deterministic: it imports only
// @temporalio/workflow, types and pure modules (enforced by lint).
export { bookRoom } from './booking/book-room';
export { cancelBooking } from './cancellation/cancel-booking';
export { syncContent } from './content-sync/content-sync';
export { deliverOrderEventsToEndpoint } from '../order-events/workflows/endpoint-delivery';
export { deliverOrderEvents } from '../order-events/workflows/overflow-delivery';
/** The order workflow's earlier name: served by the same code (docs/earlier-versions.md). */
export { order as bookRoomAndGuard } from './booking/book-room';
/** Guards of earlier versions, until their check-out (docs/earlier-versions.md). */
export { guardBooking } from './earlier-versions/guard-booking';
