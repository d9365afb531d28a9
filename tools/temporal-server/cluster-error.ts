/** What stops the local cluster's start, in one line (the caller prints it and exits 3). */
export class ClusterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterError';
  }
}
