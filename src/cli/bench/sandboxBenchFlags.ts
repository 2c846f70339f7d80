/**
 * The count flags both sandbox benchmark CLIs take (Node: bench:sandbox, Chromium:
 * bench:sandbox:browser), each a positive integer for one field of SandboxBenchOptions.
 */
import type { SandboxBenchOptions } from '../../bench/sandboxBenchmark';

type CountOption = Exclude<keyof SandboxBenchOptions, 'poolSizes'>;

const FLAGS: Record<string, CountOption> = {
  '--cold-starts': 'coldStarts',
  '--standby-restarts': 'standbyRestarts',
  '--warm-calls': 'warmCalls',
  '--throughput-calls': 'throughputCalls',
};

export function sandboxBenchUsage(script: string): string {
  return `usage: npm run --silent ${script} [-- ${Object.keys(FLAGS).map((flag) => `[${flag} N]`).join(' ')}]`;
}

/** Throws on an unknown flag or a value that is not a positive integer written in decimal digits. */
export function parseSandboxBenchFlags(argv: string[]): Partial<SandboxBenchOptions> {
  const options: Partial<Pick<SandboxBenchOptions, CountOption>> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = Object.hasOwn(FLAGS, argv[i]!) ? FLAGS[argv[i]!] : undefined;
    // Decimal digits only: Number() also takes '0x10', '1e3' and ' 5'.
    const value = /^\d{1,9}$/.test(argv[i + 1] ?? '') ? Number(argv[i + 1]) : NaN;
    if (!key || !(value >= 1)) throw new Error(`bad argument ${argv[i]}`);
    options[key] = value;
  }
  return options;
}
