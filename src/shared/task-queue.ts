/** The task queue that workers poll and clients start on (env `TEMPORAL_TASK_QUEUE` overrides). */
export const DEFAULT_TASK_QUEUE = 'hotel-booking';
