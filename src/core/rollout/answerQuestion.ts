/**
 * "Ask the model": one question of a person's own, answered by a model through the same rollout
 * and episode code a training step uses (the run's fences, Nmax, answer cap, tool-output cap and
 * sandbox limits), greedy or sampled at the run's temperature from its seed, so the same question
 * gets the same answer. The answer is reported as it is written, a snapshot per token step.
 */
import { sandboxRunOptions, type ExperimentConfig } from '../experiment';
import type { GPT } from '../model/gpt';
import { Random } from '../random';
import { responseSegments, type SampleSegment } from './rolloutSample';
import type { PythonSandbox } from '../sandbox/protocol';
import { promptOf, questionError } from '../tasks/ownQuestion';
import { encode } from '../tokenizer';
import { Episode, episodeConfig, formatToolOutput } from './episode';
import { generateRollouts, responseRoom } from './rollout';

/** One code call of the answer: the code and what the model read back (null: not run, or not back yet). */
export interface AnswerCall {
  code: string;
  output: string | null;
  ok: boolean | null;
}

export interface ModelAnswer {
  prompt: string;
  segments: SampleSegment[];
  calls: AnswerCall[];
  /** A python block has closed and its output is not back yet. */
  pythonRunning: boolean;
  done: boolean;
  endedWithEos: boolean;
}

export interface AskSettings {
  /** The run's settings: its Nmax, temperature, seed, format and caps. */
  config: ExperimentConfig;
  /** Always the likeliest next character (temperature 0) instead of sampling at the run's temperature. */
  greedy: boolean;
  sandbox: PythonSandbox;
}

export async function answerQuestion(model: GPT, question: string, settings: AskSettings, onProgress?: (answer: ModelAnswer) => void): Promise<ModelAnswer> {
  const problem = questionError(question);
  if (problem) throw new Error(problem);
  const { config } = settings;
  const prompt = promptOf(question);
  const promptIds = encode(prompt);
  // A long question leaves less of the model's context for the answer: the answer gets what is left.
  const maxResponseTokens = Math.min(config.maxResponseTokens, responseRoom(model.config.contextLength, promptIds.length));
  const episode = new Episode(promptIds, episodeConfig({ ...config, maxResponseTokens }, config.nmax));
  const { rollouts } = await generateRollouts(model, [episode], {
    temperature: settings.greedy ? 0 : config.temperature,
    rng: new Random(config.seed),
    sandbox: settings.sandbox,
    runOptions: sandboxRunOptions(config),
    onProgress: onProgress && (([episode]) => onProgress(answerSoFar(prompt, episode, config.maxOutputChars))),
  });
  return answerSoFar(prompt, rollouts[0].episode, config.maxOutputChars);
}

function answerSoFar(prompt: string, episode: Episode, maxOutputChars: number): ModelAnswer {
  return {
    prompt,
    segments: responseSegments(episode.tokens, episode.policyMask),
    calls: episode.calls.map((call) => ({
      code: call.code,
      output: call.result ? formatToolOutput(call.result, maxOutputChars) : null,
      ok: call.result ? call.result.ok : null,
    })),
    pythonRunning: episode.waitingForTool,
    done: episode.done && !episode.waitingForTool,
    endedWithEos: episode.endedWithEos,
  };
}
