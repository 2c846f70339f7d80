/**
 * What one restart of a Node sandbox interpreter costs: a factory's first interpreter loads Pyodide
 * and makes the memory snapshot, then N more are restored from it one by one, each terminated once
 * ready. Prints the restored starts' wall time, their child's CPU (user + system, from Linux's
 * /proc/PID/stat), its resident memory after a first program (where that decides recycles), and
 * this process's CPU per restored start (the trainer's thread pays it). Given a run's samples.jsonl
 * (`npm run train` writes one), each restored interpreter then runs 300 of the run's programs one
 * after another, and the mean time a program takes per 50 is printed: a new interpreter's first
 * programs are slower.
 *
 *   npx tsx scripts/sandboxRestartCost.ts [N=8] [RUN/samples.jsonl]
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

const PROGRAMS_RUN = 300;
const PROGRAMS_PER_MEAN = 50;

/** The programs of a run's kept answers, in the order they ran. */
function runPrograms(samplesPath: string): string[] {
  const lines = readFileSync(samplesPath, 'utf8').split('\n').filter((line) => line.trim() !== '');
  const programs = lines.flatMap((line) => (JSON.parse(line) as { calls: { code: string }[] }).calls.map((call) => call.code));
  if (programs.length === 0) throw new Error(`${samplesPath} holds no program`);
  return programs;
}

const restarts = Number(process.argv[2] ?? 8);
if (!Number.isInteger(restarts) || restarts < 1) throw new Error(`usage: npx tsx scripts/sandboxRestartCost.ts [N >= 1] [samples.jsonl], got ${process.argv[2]}`);
const programs = process.argv[3] === undefined ? null : runPrograms(process.argv[3]);
const factory = nodeInterpreterFactory();
const first = await factory();
const walls: number[] = [];
const childCpus: number[] = [];
const residents: number[] = [];
const programMeans: number[][] = [];
let hostSeconds = 0;
for (let i = 0; i < restarts; i++) {
  const hostBefore = process.cpuUsage();
  const startedAt = performance.now();
  const interpreter = (await factory()) as NodeInterpreter;
  walls.push((performance.now() - startedAt) / 1000);
  const pid = interpreter.pid;
  if (pid === undefined) throw new Error('the child has no pid');
  childCpus.push(childCpuSeconds(pid));
  await interpreter.run('print(1)', { timeoutMs: 10_000, maxOutputBytes: 1000 });
  residents.push(residentMegabytes(pid));
  hostSeconds += cpuSecondsSince(hostBefore);
  if (programs) programMeans.push(await programMeansMs(interpreter, programs));
  const beforeTerminate = process.cpuUsage();
  await interpreter.terminate();
  hostSeconds += cpuSecondsSince(beforeTerminate);
}
await first.terminate();
const mean = (values: number[]) => values.reduce((sum, x) => sum + x, 0) / values.length;
const round = (x: number) => Math.round(x * 1000) / 1000;
console.log(
  JSON.stringify({
    restarts,
    wallSeconds: { mean: round(mean(walls)), min: round(Math.min(...walls)), max: round(Math.max(...walls)) },
    childCpuSeconds: { mean: round(mean(childCpus)), min: round(Math.min(...childCpus)), max: round(Math.max(...childCpus)) },
    residentMegabytes: { mean: round(mean(residents)), min: round(Math.min(...residents)), max: round(Math.max(...residents)) },
    hostCpuSecondsPerRestart: round(hostSeconds / restarts),
    ...(programs && { programMsPer50: programMeans[0]!.map((_, k) => round(mean(programMeans.map((means) => means[k]!)))) }),
  }),
);

function cpuSecondsSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/** The mean wall time (ms) of each PROGRAMS_PER_MEAN programs in a row, over PROGRAMS_RUN of them. */
async function programMeansMs(interpreter: NodeInterpreter, programs: string[]): Promise<number[]> {
  const means: number[] = [];
  for (let first = 0; first < PROGRAMS_RUN; first += PROGRAMS_PER_MEAN) {
    const startedAt = performance.now();
    for (let k = first; k < first + PROGRAMS_PER_MEAN; k++) {
      await interpreter.run(programs[k % programs.length]!, { timeoutMs: 10_000, maxOutputBytes: 2000 });
    }
    means.push((performance.now() - startedAt) / PROGRAMS_PER_MEAN);
  }
  return means;
}
