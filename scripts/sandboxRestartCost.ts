/**
 * What one restart of a Node sandbox interpreter costs: a factory's first interpreter loads Pyodide
 * and makes the memory snapshot, then N more are restored from it one by one, each terminated once
 * ready. Prints the restored starts' wall time, their child's CPU (user + system, from Linux's
 * /proc/PID/stat), its resident memory after a first program (where that decides recycles), and
 * this process's CPU per restored start (the trainer's thread pays it).
 *
 *   npx tsx scripts/sandboxRestartCost.ts [N=8]
 */
import { readFileSync } from 'node:fs';
import { nodeInterpreterFactory, type NodeInterpreter } from '../src/node/sandbox/nodeInterpreter';

const CLOCK_TICKS_PER_SECOND = 100;

function childCpuSeconds(pid: number): number {
  // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

function residentMegabytes(pid: number): number {
  const kilobytes = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kilobytes) / 1024;
}

const restarts = Number(process.argv[2] ?? 8);
if (!Number.isInteger(restarts) || restarts < 1) throw new Error(`usage: npx tsx scripts/sandboxRestartCost.ts [N >= 1], got ${process.argv[2]}`);
const factory = nodeInterpreterFactory();
const first = await factory();
const walls: number[] = [];
const childCpus: number[] = [];
const residents: number[] = [];
const hostBefore = process.cpuUsage();
for (let i = 0; i < restarts; i++) {
  const startedAt = performance.now();
  const interpreter = (await factory()) as NodeInterpreter;
  walls.push((performance.now() - startedAt) / 1000);
  const pid = interpreter.pid;
  if (pid === undefined) throw new Error('the child has no pid');
  childCpus.push(childCpuSeconds(pid));
  await interpreter.run('print(1)', { timeoutMs: 10_000, maxOutputBytes: 1000 });
  residents.push(residentMegabytes(pid));
  await interpreter.terminate();
}
const host = process.cpuUsage(hostBefore);
await first.terminate();
const mean = (values: number[]) => values.reduce((sum, x) => sum + x, 0) / values.length;
const round = (x: number) => Math.round(x * 1000) / 1000;
console.log(
  JSON.stringify({
    restarts,
    wallSeconds: { mean: round(mean(walls)), min: round(Math.min(...walls)), max: round(Math.max(...walls)) },
    childCpuSeconds: { mean: round(mean(childCpus)), min: round(Math.min(...childCpus)), max: round(Math.max(...childCpus)) },
    residentMegabytes: { mean: round(mean(residents)), min: round(Math.min(...residents)), max: round(Math.max(...residents)) },
    hostCpuSecondsPerRestart: round((host.user + host.system) / 1e6 / restarts),
  }),
);
