/**
 * The fixed character vocabulary. Every checkpoint stores TOKENIZER_VERSION; a checkpoint made
 * with another version is refused, because token ids would mean different characters.
 *
 * Ids: 0 PAD, 1 BOS, 2 EOS, then '\n' and the 95 printable ASCII characters (space to '~').
 * Anything else (non-ASCII output from Python, tabs) encodes as '?', so decode(encode(s)) is
 * lossless exactly for text made of those characters.
 */
export const TOKENIZER_VERSION = 1;

export const PAD = 0;
export const BOS = 1;
export const EOS = 2;

const SPECIALS = ['<pad>', '<bos>', '<eos>'];
const CHARS: string[] = ['\n'];
for (let code = 32; code <= 126; code++) CHARS.push(String.fromCharCode(code));

export const VOCAB: readonly string[] = [...SPECIALS, ...CHARS];
export const VOCAB_SIZE = VOCAB.length;

const idOfChar = new Map<string, number>(CHARS.map((c, i) => [c, i + SPECIALS.length]));
const UNKNOWN_ID = idOfChar.get('?')!;

/** Character ids of `text`, without BOS/EOS. */
export function encode(text: string): number[] {
  const ids: number[] = [];
  for (const ch of text) ids.push(idOfChar.get(ch === '\t' ? ' ' : ch) ?? UNKNOWN_ID);
  return ids;
}

/** Text of `ids`; special tokens are dropped. */
export function decode(ids: ArrayLike<number>): string {
  let text = '';
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (id >= SPECIALS.length && id < VOCAB_SIZE) text += VOCAB[id];
  }
  return text;
}

/** The id of a single character (throws for a character outside the vocabulary). */
export function charId(ch: string): number {
  const id = idOfChar.get(ch);
  if (id === undefined) throw new Error(`character ${JSON.stringify(ch)} is not in the vocabulary`);
  return id;
}
