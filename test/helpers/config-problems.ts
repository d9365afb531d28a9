/** The problems a configuration loader names for `env` (none: []), for the configuration tests. */
import { ConfigError } from '../../src/config';

export function problemsOf(
  load: (env: NodeJS.ProcessEnv) => unknown,
  env: NodeJS.ProcessEnv,
): readonly string[] {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
