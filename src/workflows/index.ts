// Every workflow the worker registers. Workflow code is deterministic: it imports only
// @temporalio/workflow, types and pure modules (enforced by lint).
export { bookRoom } from './earlier-versions/book-room';
export { cancelBooking } from './cancellation/cancel-booking';
export { syncContent } from './content-sync/content-sync';
export { guardBooking } from './guard/guard';
export { deliverOrderEvents } from './order-events/deliver-order-events';
export { bookRoomAndGuard } from './booking/book-room';
