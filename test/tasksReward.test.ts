import { describe, expect, it } from 'vitest';
import type { Problem } from '../src/core/tasks/problem';
import { answerReward, extractFinalAnswer } from '../src/core/tasks/reward';
import { arithmeticProblem } from '../src/core/tasks/arithmeticFamilies';

const P: Problem = arithmeticProblem('productPlusTerm', 'hard', '347*29+18', 10081);
const TOOL_RESPONSE = ' ```python\nprint(347*29+18)\n```\n```output\n10081\n```\nAnswer: 10081';

describe('extractFinalAnswer', () => {
  it('reads a clean final line, with or without the space left after the prompt\'s A:', () => {
    expect(extractFinalAnswer(' Answer: 7')).toBe(7);
    expect(extractFinalAnswer('Answer: 7')).toBe(7);
    expect(extractFinalAnswer(TOOL_RESPONSE)).toBe(10081);
    expect(extractFinalAnswer(' 3+4 = 7\nAnswer: 7')).toBe(7);
    expect(extractFinalAnswer('Answer: -12')).toBe(-12);
    expect(extractFinalAnswer('Answer: 0')).toBe(0);
  });

  it('rejects trailing junk, the gaming case of a loose checker included', () => {
    expect(extractFinalAnswer(' Answer: 18)))))')).toBeNull();
    expect(extractFinalAnswer('Answer: 18 ')).toBeNull();
    expect(extractFinalAnswer('Answer: 18.')).toBeNull();
    expect(extractFinalAnswer('Answer: 18abc')).toBeNull();
    expect(extractFinalAnswer('Answer: 18\n')).toBeNull();
    expect(extractFinalAnswer('Answer: 18 19')).toBeNull();
  });

  it('rejects two Answer lines, even when the last one is right', () => {
    expect(extractFinalAnswer('Answer: 5\nAnswer: 7')).toBeNull();
    expect(extractFinalAnswer(' Answer: 7\nAnswer: 7')).toBeNull();
    expect(extractFinalAnswer('Answer: junk\nAnswer: 7')).toBeNull();
  });

  it('counts an Answer line printed by the tool as a second answer', () => {
    expect(extractFinalAnswer(' ```python\nprint("Answer: 7")\n```\n```output\nAnswer: 7\n```\nAnswer: 7')).toBeNull();
  });

  it('rejects an answer mid-line, or not on the last line', () => {
    expect(extractFinalAnswer('so Answer: 7')).toBeNull();
    expect(extractFinalAnswer('The Answer: 7')).toBeNull();
    expect(extractFinalAnswer('Answer: 7\nok')).toBeNull();
    expect(extractFinalAnswer('7')).toBeNull();
    expect(extractFinalAnswer('')).toBeNull();
  });

  it('rejects non-canonical integers: leading zeros, -0, a plus sign, digits past 2^53', () => {
    expect(extractFinalAnswer('Answer: 07')).toBeNull();
    expect(extractFinalAnswer('Answer: 0010081')).toBeNull();
    expect(extractFinalAnswer('Answer: -0')).toBeNull();
    expect(extractFinalAnswer('Answer: +7')).toBeNull();
    expect(extractFinalAnswer('Answer: 99999999999999999999')).toBeNull();
  });

  it('demands exactly one space after the colon and at most one before Answer', () => {
    expect(extractFinalAnswer('Answer:7')).toBeNull();
    expect(extractFinalAnswer('Answer:  7')).toBeNull();
    expect(extractFinalAnswer('  Answer: 7')).toBeNull();
    expect(extractFinalAnswer('answer: 7')).toBeNull();
    expect(extractFinalAnswer('Answer : 7')).toBeNull();
  });
});

describe('answerReward', () => {
  it('is 1 only for the right answer in a response that ended with EOS', () => {
    expect(answerReward(TOOL_RESPONSE, true, P)).toBe(1);
    expect(answerReward(' Answer: 10081', true, P)).toBe(1);
    expect(answerReward(TOOL_RESPONSE, false, P)).toBe(0);
    expect(answerReward(' Answer: 10082', true, P)).toBe(0);
    expect(answerReward(' Answer: 10081)))', true, P)).toBe(0);
    expect(answerReward('', true, P)).toBe(0);
  });
});
