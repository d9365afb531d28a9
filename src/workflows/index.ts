// Every workflow the worker registers. Workflow code is deterministic: it imports only
// @temporalio/workflow, types and pure modules (enforced by lint).
export { bookRoom } from './book-room';
export { cancelBooking } from './cancel-booking';
export { syncContent } from './content-sync';
export { guardBooking } from './guard-booking';
export { deliverOrderEvents } from './deliver-order-events';
export { bookRoomAndGuard } from './book-room-and-guard';
