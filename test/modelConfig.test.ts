import { describe, expect, it } from 'vitest';
import { BASE_MODEL_CONFIG, validateGPTConfig } from '../src/core/model/config';

describe('GPT config', () => {
  it('ships the base model shape', () => {
    expect(BASE_MODEL_CONFIG).toEqual({ vocabSize: 99, contextLength: 512, nLayer: 3, nHead: 4, nEmbd: 64, mlpRatio: 4 });
  });

  it('accepts a valid config and returns a clean copy', () => {
    const input = { ...BASE_MODEL_CONFIG, mlpRatio: 2.5 };
    const checked = validateGPTConfig(input);
    expect(checked).toEqual(input);
    expect(checked).not.toBe(input);
  });

  it.each([
    [null, 'GPT config must be an object, got null'],
    [[1, 2], 'GPT config must be an object, got an array'],
    ['small', 'GPT config must be an object, got string'],
    [{ ...BASE_MODEL_CONFIG, dropout: 0.1 }, 'GPT config has an unknown field "dropout"'],
    [{ ...BASE_MODEL_CONFIG, nLayer: undefined }, 'GPT config is missing "nLayer"'],
    [{ ...BASE_MODEL_CONFIG, nHead: 0 }, 'GPT config "nHead" must be a positive number, got 0'],
    [{ ...BASE_MODEL_CONFIG, nEmbd: '64' }, 'GPT config "nEmbd" must be a positive number, got "64"'],
    [{ ...BASE_MODEL_CONFIG, contextLength: Infinity }, 'GPT config "contextLength" must be a positive number, got Infinity'],
    [{ ...BASE_MODEL_CONFIG, nLayer: 2.5 }, 'GPT config "nLayer" must be an integer, got 2.5'],
    [{ ...BASE_MODEL_CONFIG, nHead: 5 }, 'GPT config nEmbd (64) must be divisible by nHead (5)'],
    [{ ...BASE_MODEL_CONFIG, mlpRatio: 0.3 }, 'GPT config nEmbd * mlpRatio (64 * 0.3) must be an integer'],
  ])('refuses %j', (config, message) => {
    expect(() => validateGPTConfig(config)).toThrow(message);
  });
});
