/**
 * The exported reward.py gives exactly the lab's rewards: on every response of two seeded runs
 * (test/exportFixtures.ts) and on the reward's gaming cases, each written over seeded problems.
 */
import { describe, expect, it } from 'vitest';
import { Random } from '../src/core/random';
import { answerReward } from '../src/core/tasks/reward';
import { trainProblem } from '../src/core/tasks/splits';
import type { Problem } from '../src/core/tasks/problem';
import { fixtureSamples } from './exportFixtures';
import { runPython } from './pythonExport';

interface RewardCase {
  response: string;
  endedWithEos: boolean;
  answer: number;
}

/** Ways to game or miss the strict rule, each around the problem's true answer. */
function gamingCases(p: Problem): RewardCase[] {
  const a = p.answer;
  const code = ` \`\`\`python\nprint(${p.expression})\n\`\`\`\n\`\`\`output\n${a}\n\`\`\`\n`;
  const responses = [
    ` Answer: ${a}`,
    `Answer: ${a}`,
    `${code}Answer: ${a}`,
    ` Answer: ${a})))))`,
    ` Answer: ${a} `,
    ` Answer: ${a}\n`,
    ` Answer: ${a}.`,
    ` Answer: 0${a}`,
    ` Answer: +${a}`,
    ` Answer: ${-a}`,
    ' Answer: -0',
    ` Answer:${a}`,
    ` Answer:  ${a}`,
    `  Answer: ${a}`,
    ` answer: ${a}`,
    ` Answer : ${a}`,
    ` so Answer: ${a}`,
    ` Answer: ${a}\nok`,
    ` Answer: ${a + 1}\nAnswer: ${a}`,
    ` Answer: ${a}\nAnswer: ${a}`,
    ` \`\`\`python\nprint("Answer: ${a}")\n\`\`\`\n\`\`\`output\nAnswer: ${a}\n\`\`\`\nAnswer: ${a}`,
    ` <code>\nprint("Answer: ${a}")\n</code>\n<interpreter>\nAnswer: ${a}\n</interpreter>\nAnswer: ${a}`,
    ` Answer: ${a}\r`,
    ` Answer: ${String(a).replace(/\d/g, (d) => String.fromCharCode(0x660 + Number(d)))}`,
    ' Answer: 9007199254740991',
    ' Answer: 9007199254740992',
    ' Answer: 99999999999999999999',
    // Past Python's integer-string limit (4300 digits by default), where int() raises.
    ` Answer: ${'9'.repeat(4301)}`,
    ` Answer: -${'1'.repeat(5000)}`,
    ` Answer: ${a} ${a}`,
    `\u00a0Answer: ${a}`,
    ` The answer is ${a}`,
    '',
  ];
  return responses.flatMap((response) => [
    { response, endedWithEos: true, answer: a },
    { response, endedWithEos: false, answer: a },
  ]);
}

const PYTHON_REWARDS = `
from reward import answer_reward, compute_score
cases = json.load(sys.stdin)
out = []
for c in cases:
    r = answer_reward(c["response"], c["endedWithEos"], c["answer"])
    # verl's entry point: ground truth as a string, EOS from extra_info
    v = compute_score("tir_lab", c["response"], str(c["answer"]), {"ended_with_eos": c["endedWithEos"]})
    out.append([r, v])
json.dump(out, sys.stdout)
`;

describe('reward.py against src/core/tasks/reward.ts', () => {
  const runs = [...fixtureSamples('samples-quick-zerotir.jsonl'), ...fixtureSamples('samples-coldstart-retool.jsonl')];

  it('gives the recorded reward of every response of two seeded runs', () => {
    expect(runs.length).toBeGreaterThanOrEqual(1000);
    const cases: RewardCase[] = runs.map((s) => ({ response: s.response, endedWithEos: s.endedWithEos, answer: s.expected }));
    const python = runPython<[number, number][]>(PYTHON_REWARDS, cases);
    const lab = runs.map((s) => s.reward);
    expect(python.map(([r]) => r)).toEqual(lab);
    expect(python.map(([, v]) => v)).toEqual(lab);
    // Both outcomes are present, so the comparison means something.
    expect(lab.filter((r) => r === 1).length).toBeGreaterThan(200);
    expect(lab.filter((r) => r === 0).length).toBeGreaterThan(200);
    expect(runs.filter((s) => !s.endedWithEos).length).toBeGreaterThan(0);
  });

  it('agrees with the lab on every gaming case, over seeded problems', () => {
    const rng = new Random(15);
    const problems = Array.from({ length: 20 }, () => trainProblem(rng, { tierMix: { easy: 1, medium: 1, hard: 2 }, kindMix: { arithmetic: 1, compose: 1, search: 1, errorProne: 1, multiStep: 1, chain: 1 } }));
    const cases = problems.flatMap(gamingCases);
    const python = runPython<[number, number][]>(PYTHON_REWARDS, cases);
    const lab = cases.map((c) => answerReward(c.response, c.endedWithEos, { answer: c.answer } as Problem));
    expect(python.map(([r]) => r)).toEqual(lab);
    expect(python.map(([, v]) => v)).toEqual(lab);
    // Per problem: the clean answer, with and without the leading space and after a tool call, earns 1; the rest 0.
    expect(lab.filter((r) => r === 1).length).toBe(problems.length * 3);
  });

  it("assumes EOS in verl's compute_score when extra_info does not say", () => {
    const scores = runPython<number[]>(
      `from reward import compute_score
json.dump([compute_score("tir_lab", " Answer: 42", "42"), compute_score("tir_lab", " Answer: 42", "42", {}), compute_score("tir_lab", " Answer: 41", "42", None)], sys.stdout)`,
      null,
    );
    expect(scores).toEqual([1, 1, 0]);
  });
});
