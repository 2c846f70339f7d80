/**
 * One tool-use episode at the character level: the stop-token state machine of ZeroTIR. In text,
 * the policy's tokens are scanned for the opening fence; in code, for the closing fence. On a
 * closing fence the code is executed (while fewer than `nmax` calls have run) and the environment
 * appends the output block as environment tokens (mask 0: no loss), then the policy continues.
 * After `nmax` executed calls a fence is plain text, so the model must finish on its own.
 */
import type { RunResult } from '../sandbox/protocol';
import { decode, encode, EOS } from '../tokenizer';
import { TOOL_FORMATS, type ToolFormat, type ToolFormatName } from './formats';

export interface EpisodeConfig {
  format: ToolFormat;
  /** Executed calls allowed per response; 0 = no tool. */
  nmax: number;
  /** Cap on response tokens, policy and environment together. */
  maxResponseTokens: number;
  /** Tool output is cut to this many characters, then a marker line. */
  maxOutputChars: number;
}

/** What a run's config (or a checkpoint's meta: checkpointLimits.ts) fixes of the episode; Nmax aside, which evaluation varies. */
export interface EpisodeLimits {
  format: ToolFormatName;
  maxResponseTokens: number;
  maxOutputChars: number;
}

/** The one place an EpisodeConfig is made: the trainer's rollouts, `npm run eval` and the lab's evaluation. */
export function episodeConfig(limits: EpisodeLimits, nmax: number): EpisodeConfig {
  return { format: TOOL_FORMATS[limits.format], nmax, maxResponseTokens: limits.maxResponseTokens, maxOutputChars: limits.maxOutputChars };
}

export type EpisodeAction = { type: 'continue' } | { type: 'execute'; code: string } | { type: 'done' };

/** A closed code block. A block cut by EOS or the length cap is not a call. */
export interface ToolCall {
  /** The text between the fences, without the newline after the opening fence and the one before the closing fence. */
  code: string;
  /** False when Nmax was already reached (or the cap left no room): the fence was plain text. */
  executed: boolean;
  result?: RunResult;
  /** Index in `tokens` of codeOpen's first character. */
  start: number;
}

export const OUTPUT_TRUNCATED_MARKER = '...[output truncated]';

/** The last line of the error message, prefixed by the error type unless it already starts with it (Python tracebacks do). */
function errorLine(error: RunResult['error']): string {
  if (error === undefined) return 'Error';
  const last = error.message.trimEnd().split('\n').at(-1)!.trim();
  if (last === '') return error.type;
  return last === error.type || last.startsWith(`${error.type}:`) ? last : `${error.type}: ${last}`;
}

/**
 * What the model reads back: stdout without its final newline, then `<ErrorType>: message` on a
 * line of its own when the run failed. Text past `maxChars` characters, or output the sandbox
 * already cut at its byte cap, ends with a visible `...[output truncated]` line.
 */
export function formatToolOutput(result: RunResult, maxChars: number): string {
  const stdout = result.stdout.endsWith('\n') ? result.stdout.slice(0, -1) : result.stdout;
  let text = stdout;
  if (!result.ok) text = stdout === '' ? errorLine(result.error) : `${stdout}\n${errorLine(result.error)}`;
  if (text.length <= maxChars && !result.truncated) return text;
  const kept = text.slice(0, maxChars);
  return kept === '' || kept.endsWith('\n') ? kept + OUTPUT_TRUNCATED_MARKER : `${kept}\n${OUTPUT_TRUNCATED_MARKER}`;
}

const CONTINUE: EpisodeAction = { type: 'continue' };
const DONE: EpisodeAction = { type: 'done' };

export class Episode {
  readonly promptIds: number[];
  /** Response tokens (policy and environment), prompt excluded. */
  readonly tokens: number[] = [];
  /** Per response token: 1 sampled by the policy (trained on), 0 inserted by the environment. */
  readonly policyMask: number[] = [];
  readonly calls: ToolCall[] = [];
  done = false;
  endedWithEos = false;

  /** What it allows: its Nmax, its caps and its fences. */
  readonly config: EpisodeConfig;
  private inCode = false;
  /** Token index where the open code block's fence starts. */
  private openStart = 0;
  /** Policy text since the last state change, and the token index of each of its characters. */
  private region = '';
  private regionTokenIndex: number[] = [];
  private pendingCall: ToolCall | null = null;
  private executed = 0;

  constructor(promptIds: number[], config: EpisodeConfig) {
    const { nmax, maxResponseTokens, maxOutputChars } = config;
    if (!Number.isInteger(nmax) || nmax < 0) throw new Error(`nmax must be an integer >= 0, got ${nmax}`);
    if (!Number.isInteger(maxResponseTokens) || maxResponseTokens < 1) {
      throw new Error(`maxResponseTokens must be an integer >= 1, got ${maxResponseTokens}`);
    }
    if (!Number.isInteger(maxOutputChars) || maxOutputChars < 0) {
      throw new Error(`maxOutputChars must be an integer >= 0, got ${maxOutputChars}`);
    }
    this.promptIds = promptIds;
    this.config = config;
  }

  /** True between an 'execute' action and the matching pushToolResult. */
  get waitingForTool(): boolean {
    return this.pendingCall !== null;
  }

  /** Calls that were (or are being) executed. */
  get executedCalls(): number {
    return this.executed;
  }

  /** Appends one sampled token and says what the caller must do next. */
  pushPolicyToken(id: number): EpisodeAction {
    if (this.done) throw new Error('pushPolicyToken on a finished episode');
    if (this.pendingCall !== null) throw new Error('pushPolicyToken while a tool result is awaited: call pushToolResult first');
    this.tokens.push(id);
    this.policyMask.push(1);
    if (id === EOS) {
      this.done = true;
      this.endedWithEos = true;
      return DONE;
    }
    const ch = decode([id]);
    if (ch !== '') {
      this.region += ch;
      this.regionTokenIndex.push(this.tokens.length - 1);
    }
    const action = this.advanceFenceState();
    if (this.tokens.length >= this.config.maxResponseTokens) {
      this.done = true;
      return DONE;
    }
    return action;
  }

  /** Appends the output block for the awaited call as environment tokens (cut at the length cap); returns them. */
  pushToolResult(result: RunResult): number[] {
    const call = this.pendingCall;
    if (call === null) throw new Error('pushToolResult with no call awaiting a result');
    call.result = result;
    this.pendingCall = null;
    const { format, maxOutputChars, maxResponseTokens } = this.config;
    const block = format.outputOpen + formatToolOutput(result, maxOutputChars) + format.outputClose;
    const appended = encode(block).slice(0, maxResponseTokens - this.tokens.length);
    for (const id of appended) {
      this.tokens.push(id);
      this.policyMask.push(0);
    }
    this.resetRegion();
    if (this.tokens.length >= maxResponseTokens) this.done = true;
    return appended;
  }

  responseText(): string {
    return decode(this.tokens);
  }

  private advanceFenceState(): EpisodeAction {
    const { codeOpen, codeClose } = this.config.format;
    if (!this.inCode) {
      if (!this.region.endsWith(codeOpen)) return CONTINUE;
      this.openStart = this.regionTokenIndex[this.region.length - codeOpen.length];
      this.inCode = true;
      this.resetRegion();
      return CONTINUE;
    }
    if (!this.region.endsWith(codeClose)) return CONTINUE;
    let code = this.region.slice(0, -codeClose.length);
    if (code.startsWith('\n')) code = code.slice(1);
    if (code.endsWith('\n')) code = code.slice(0, -1);
    this.inCode = false;
    this.resetRegion();
    // Executing needs room for at least one output token before the cap.
    const execute = this.executed < this.config.nmax && this.tokens.length < this.config.maxResponseTokens;
    const call: ToolCall = { code, executed: execute, start: this.openStart };
    this.calls.push(call);
    if (!execute) return CONTINUE;
    this.executed++;
    this.pendingCall = call;
    return { type: 'execute', code };
  }

  private resetRegion(): void {
    this.region = '';
    this.regionTokenIndex = [];
  }
}
