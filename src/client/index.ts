export * from './booking-client';
export * from '../shared/booking-contract';
