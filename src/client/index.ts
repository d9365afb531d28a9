export * from './booking-client';
export * from '../shared/booking-contract';
export * from './connect';
export * from '../shared/guard-contract';
