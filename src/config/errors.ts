/** A configuration problem, naming every bad or missing variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * A value as a problem shows it: quoted (one line, whatever it holds), a URL's password masked.
 * Only for values that are not secrets themselves (paths, addresses); a secret is never shown.
 */
export function shown(value: string): string {
  return JSON.stringify(withoutPassword(value));
}

/** `value` with a URL's password masked (`//user:***@host`). */
export function withoutPassword(value: string): string {
  return value.replace(/(\/\/[^/@:\s]*:)[^/@\s]*@/g, '$1***@');
}

/** `load()`'s result; on a {@link ConfigError}, undefined and its problems pushed onto `problems`. */
export function collectProblems<T>(load: () => T, problems: string[]): T | undefined {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
    return undefined;
  }
}
