/**
 * The worker API's one list (trainerWorker/protocol.ts): every TrainerWorkerApi command crosses from the
 * page's side (proxyingCallbacks, ui/controller/trainerConnection.ts) through a stand-in for comlink to
 * the worker's (sessionCommands, trainerWorker/trainerApi.ts) and reaches the session's method of its
 * name, its callbacks callable from the worker and its result back on the page.
 */
import * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import type { TrainerCommands, TrainerWorkerApi } from '../src/trainerWorker/protocol';
import { createTrainerApi, sessionCommands } from '../src/trainerWorker/trainerApi';
import { proxyingCallbacks } from '../src/ui/controller/trainerConnection';

const CONFIG = PRESETS.classroom;
const BLOB = { manifest: { format: 'tir-lab-checkpoint' }, weights: Uint8Array.from([1, 2, 3]) };

/** Arguments for every command: typed by the interface, so a command added there must be added here. */
const CALLS: { [K in keyof TrainerWorkerApi]: Parameters<TrainerWorkerApi[K]> } = {
  init: [{ backend: 'wasm', baseModelUrl: '/models/base/model.json' }, () => undefined],
  startRun: ['run-1', CONFIG, { checkpoint: BLOB, step: 3 }],
  train: [],
  pause: [],
  step: [],
  slowMotionStep: [async () => undefined],
  reset: [],
  saveCheckpoint: [],
  evaluate: [[0, 2]],
  evaluatePassAtOne: [{ checkpoint: BLOB, label: 'a run', nmaxList: [0, 1], k: 2, temperature: 1, topP: 0.7, seed: 0 }],
  cancelEvaluation: [],
  askModel: [{ question: 'What is 2 + 3?', config: CONFIG, greedy: true, model: { kind: 'base' } }, () => undefined],
  pretrain: [{ steps: 2, seed: 1, toolPrior: 0.1 }],
};
const NAMES = Object.keys(CALLS) as (keyof TrainerWorkerApi)[];

type Method = (...args: unknown[]) => Promise<unknown>;

function isProxyMarked(value: unknown): boolean {
  return (typeof value === 'function' || (typeof value === 'object' && value !== null)) && (value as Partial<Comlink.ProxyMarked>)[Comlink.proxyMarker] === true;
}

/**
 * comlink's wrap over an exposed object, as far as the lab uses it. A call's arguments are posted
 * with the structured clone algorithm (Node's structuredClone is the one postMessage uses), which
 * throws a DataCloneError on a function, and comlink's call then rejects with it; an argument marked
 * with Comlink.proxy is not cloned but arrives as a function whose call crosses back and returns a
 * promise, rejected once the page is gone. Results are cloned back; a thrown error arrives as an
 * Error with its message.
 */
function comlinkStandIn(exposed: TrainerWorkerApi, page: { gone: boolean }): Comlink.RemoteObject<TrainerWorkerApi> {
  const callBack = (callback: Method) => async (...args: unknown[]) => {
    if (page.gone) throw new Error('the page is gone');
    return callback(...structuredClone(args));
  };
  return new Proxy({} as Comlink.RemoteObject<TrainerWorkerApi>, {
    get: (_target, name) => async (...args: unknown[]) => {
      const posted = args.map((arg) => (isProxyMarked(arg) ? callBack(arg as Method) : structuredClone(arg)));
      const method = Reflect.get(exposed, name) as Method;
      try {
        return structuredClone(await method.apply(exposed, posted));
      } catch (error) {
        throw new Error((error as Error).message);
      }
    },
  });
}

interface Arrival {
  name: string;
  args: unknown[];
}

/** A session that takes any command: it records it, calls each callback with the command's name and waits for it, and answers "<name> done". */
function recordingSession(arrivals: Arrival[]): TrainerCommands {
  return new Proxy({} as TrainerCommands, {
    get: (_target, name) => async (...args: unknown[]) => {
      arrivals.push({ name: String(name), args });
      for (const arg of args) if (typeof arg === 'function') await (arg as Method)(`${String(name)} calls back`);
      return `${String(name)} done`;
    },
  });
}

/** The page's API over the stand-in, the worker's side being sessionCommands over `session` and an init that calls its callback. */
function link(session: TrainerCommands | null, page = { gone: false }) {
  const reported: unknown[] = [];
  const guard = async <T,>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      reported.push((error as Error).message);
      throw error;
    }
  };
  const inits: unknown[][] = [];
  const worker: TrainerWorkerApi = {
    async init(...args) {
      inits.push(args);
      await args[1]({ type: 'error', message: 'init calls back' });
      return { name: 'wasm', adapter: null, probeMs: {}, reason: 'test' };
    },
    ...sessionCommands(() => {
      if (!session) throw new Error('the trainer worker is not initialised: call init first');
      return session;
    }, guard),
  };
  const remote = comlinkStandIn(worker, page);
  return { api: proxyingCallbacks(remote), remote, reported, inits };
}

describe('the trainer worker API, one list', () => {
  it('the stand-in refuses a function argument that is not proxied, as comlink does', async () => {
    const { remote } = link(recordingSession([]));
    await expect(remote.askModel(CALLS.askModel[0], () => undefined)).rejects.toThrow(/could not be cloned/);
  });

  it('every command reaches the session method of its name, its callbacks proxied and called back, its result returned', async () => {
    const arrivals: Arrival[] = [];
    const { api, inits } = link(recordingSession(arrivals));
    const heard: unknown[] = [];
    const results: Record<string, unknown> = {};
    for (const name of NAMES) {
      const args = CALLS[name].map((arg) => (typeof arg === 'function' ? (said: unknown) => void heard.push(said) : arg));
      results[name] = await (api[name] as Method)(...args);
    }
    const commands = NAMES.filter((name) => name !== 'init');
    expect(arrivals.map((a) => a.name)).toEqual(commands);
    for (const { name, args } of arrivals) {
      const sent = CALLS[name as keyof TrainerCommands];
      expect(args.length, name).toBe(sent.length);
      args.forEach((arg, i) => (typeof sent[i] === 'function' ? expect(arg, `${name}'s callback`).toBeTypeOf('function') : expect(arg, name).toEqual(sent[i])));
      expect(results[name]).toBe(`${name} done`);
    }
    expect(inits).toHaveLength(1);
    expect(heard).toEqual([{ type: 'error', message: 'init calls back' }, 'slowMotionStep calls back', 'askModel calls back']);
  });

  it("the worker's side answers every command, the page's side sends every one", () => {
    const worker = createTrainerApi({
      chooseBackend: async () => ({ name: 'wasm', adapter: null, probeMs: {}, reason: 'test' }),
      loadCheckpoint: async () => BLOB,
      createSandbox: async () => {
        throw new Error('not used');
      },
    });
    expect(Object.keys(worker).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) expect(worker[name], name).toBeTypeOf('function');
    const page = proxyingCallbacks(comlinkStandIn(worker, { gone: false }));
    expect(Object.keys(page).sort()).toEqual([...NAMES].sort());
  });

  it("a session's failure is reported and rejects the page's call; before init every command refuses", async () => {
    const failing = new Proxy({} as TrainerCommands, {
      get: (_target, name) => async () => {
        throw new Error(`${String(name)} failed`);
      },
    });
    const { api, reported } = link(failing);
    await expect(api.startRun('run-1', CONFIG)).rejects.toThrow('startRun failed');
    expect(reported).toEqual(['startRun failed']);

    const before = link(null);
    await expect(before.api.evaluate([0])).rejects.toThrow('the trainer worker is not initialised: call init first');
    expect(before.reported).toEqual(['the trainer worker is not initialised: call init first']);
  });

  it('a callback whose page is gone: the answer goes on regardless, a step that waits for it sees the failure', async () => {
    const page = { gone: true };
    // The session's askModel calls onAnswer without waiting (answerQuestion); slow motion waits for onStage.
    const session = {
      async askModel(_request: unknown, onAnswer: (answer: string) => void) {
        onAnswer('Answer: 5');
        return 'answered';
      },
      async slowMotionStep(onStage: (stage: string) => Promise<void>) {
        await onStage('rollouts');
      },
    } as unknown as TrainerCommands;
    const { api } = link(session, page);
    // An unhandled rejection of the answer's call back would fail this test file.
    expect(await api.askModel(CALLS.askModel[0], () => undefined)).toBe('answered');
    await new Promise((resolve) => setTimeout(resolve, 0));
    await expect(api.slowMotionStep(async () => undefined)).rejects.toThrow('the page is gone');
  });
});
