import { readFileSync } from 'node:fs';
import { shown } from './errors';

/**
 * `name`'s value, or the trimmed text of the file `name_FILE` names; never both. Undefined when
 * neither is set; null on a problem, pushed naming the variable (a path is shown, a value never).
 */
export function valueOrFile(
  name: string,
  value: string | undefined,
  file: string | undefined,
  problems: string[],
): string | null | undefined {
  if (value !== undefined && file !== undefined) {
    problems.push(`${name} and ${name}_FILE: set only one of them`);
    return null;
  }
  if (file === undefined) return value;
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    problems.push(`${name}_FILE: cannot read ${shown(file)} (${code})`);
    return null;
  }
}
