/** The tool's exit codes: a stable contract for scripts, each a kind of outcome, not an error. */
export const ExitCode = {
  /** The operation did what was asked (for `book --wait`: the booking is CONFIRMED). */
  OK: 0,
  /** The operation ran and failed: an outcome other than the one asked for, an update refused. */
  FAILED: 1,
  /** Bad usage or invalid input: nothing was started or sent. */
  USAGE: 2,
  /** Temporal, a worker or the supplier could not be reached. */
  UNREACHABLE: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
