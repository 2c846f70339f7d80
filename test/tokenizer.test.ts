import { describe, expect, it } from 'vitest';
import { BOS, decode, encode, EOS, PAD, TOKENIZER_VERSION, VOCAB, VOCAB_SIZE, charId } from '../src/core/tokenizer';

describe('tokenizer', () => {
  it('round-trips prompts, python, outputs and answers', () => {
    const text = 'Q: what is 347*29+18?\nA: ```python\nprint(347*29+18)\n```\n```output\n10081\n```\nAnswer: 10081';
    expect(decode(encode(text))).toBe(text);
    expect(encode(text)).toHaveLength(text.length);
  });

  it('has fixed special ids and a fixed size', () => {
    expect([PAD, BOS, EOS]).toEqual([0, 1, 2]);
    expect(VOCAB_SIZE).toBe(99);
    expect(TOKENIZER_VERSION).toBe(1);
    expect(VOCAB[charId('\n')]).toBe('\n');
    expect(charId('0')).toBe(3 + 1 + 16);
  });

  it('maps unknown characters to ? and drops specials on decode', () => {
    expect(decode(encode('π=3'))).toBe('?=3');
    expect(decode([BOS, ...encode('ok'), EOS, PAD])).toBe('ok');
    expect(() => charId('é')).toThrow(/not in the vocabulary/);
  });
});
