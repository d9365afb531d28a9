/**
 * What the bench reads of a process from Linux's `/proc`: its resident memory and its CPU time
 * (alone, or with all its descendants').
 */
import { readdirSync, readFileSync } from 'node:fs';

/** VmRSS of a process, in MiB (Linux `/proc/<pid>/status`). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/**
 * The fields of `/proc/<pid>/stat` after the command name (`state` is [0], `ppid` [1]); undefined
 * when the process is gone.
 */
export function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** utime + stime of a process, in seconds (`/proc/<pid>/stat`, in clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const f = statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) / 100 : NaN;
}

/**
 * CPU seconds of a process and all its descendants: each live one's utime + stime, plus the
 * cutime + cstime of each (its children that ended and were waited for), so a backend that ends
 * between two readings still counts. NaN when the root is gone.
 */
export function treeCpuSeconds(root: number): number {
  const children = new Map<number, number[]>();
  const fields = new Map<number, string[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(name);
    if (!f) continue;
    const pid = Number(name);
    fields.set(pid, f);
    const parent = Number(f[1]);
    const siblings = children.get(parent);
    if (siblings) siblings.push(pid);
    else children.set(parent, [pid]);
  }
  if (!fields.has(root)) return NaN;
  let ticks = 0;
  const todo = [root];
  for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
    const f = fields.get(pid)!;
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    todo.push(...(children.get(pid) ?? []));
  }
  return ticks / 100;
}
