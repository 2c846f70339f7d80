import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusDocument, DEFAULT_CORPUS_RECIPE, validateCorpusRecipe, type CorpusRecipe } from '../src/core/corpus/corpus';
import { Random } from '../src/core/random';
import { pythonStdout } from './pythonStdout';
import { arithmeticProblem } from '../src/core/tasks/arithmeticFamilies';
import { answerReward, extractFinalAnswer } from '../src/core/tasks/reward';
import { evalSet, testSet } from '../src/core/tasks/splits';
import { CORPUS_OUTPUT_CHARS } from '../src/core/corpus/notebookSessions';
import { formatToolOutput } from '../src/core/rollout/episode';
import { createNodeSandbox } from '../src/node/sandbox/nodeSandbox';
import { decode, encode } from '../src/core/tokenizer';
import { divisionCode, divisionOutput } from '../src/core/corpus/chainSessions';

const QA = /^Q: what is ([^?\n]+)\?\nA:([\s\S]*)$/;
const TOOL_ANSWER = /^ ```python\n([\s\S]*?)\n```\nAnswer: (-?\d+)$/;
const TOOL_ANSWER_LINE = /^Q: [^\n]+\nA: ```python\n[\s\S]*?\n```\nAnswer: \d+$/;
const NOTEBOOK = /^(?:([^\n]+)\n)?```python\n([\s\S]*?)\n```\n```output\n([^\n]*)\n```\n([^\n]+)$/;

function documents(seed: number, n: number, recipe: CorpusRecipe = DEFAULT_CORPUS_RECIPE): string[] {
  const rng = new Random(seed);
  return Array.from({ length: n }, () => corpusDocument(rng, recipe));
}

const qaDocs = (docs: string[]) => docs.filter((d) => d.startsWith('Q:'));
const toolShare = (docs: string[]) => qaDocs(docs).filter((d) => d.includes('A: ```python')).length / qaDocs(docs).length;


const DOCS = documents(1, 5000);

describe('corpusDocument', () => {
  it('is deterministic per seed', () => {
    expect(documents(1, 300)).toEqual(DOCS.slice(0, 300));
    expect(documents(2, 300)).not.toEqual(DOCS.slice(0, 300));
  });

  it('writes short documents of tokenizer characters only', () => {
    for (const doc of DOCS) {
      expect(doc.length).toBeGreaterThan(0);
      expect(doc.length).toBeLessThanOrEqual(200);
      expect(decode(encode(doc))).toBe(doc);
    }
  });

  it('draws the document kinds by the recipe shares', () => {
    const qa = qaDocs(DOCS).length;
    const notebooks = DOCS.filter((d) => NOTEBOOK.test(d)).length;
    const prose = DOCS.filter((d) => !d.includes('```') && !d.startsWith('Q:')).length;
    expect(qa + notebooks + prose).toBe(5000);
    // 0.5 / 0.4 / 0.1 of 5000; sd of the Q/A count sqrt(5000 * 0.25) = 35
    expect(Math.abs(qa - 2500)).toBeLessThan(150);
    expect(Math.abs(notebooks - 2000)).toBeLessThan(150);
    expect(Math.abs(prose - 500)).toBeLessThan(100);
    expect(documents(3, 200, { ...DEFAULT_CORPUS_RECIPE, qaShare: 0, proseShare: 0 }).every((d) => NOTEBOOK.test(d))).toBe(true);
  });

  it('starts Q/A answers with a python block at the toolPrior rate', () => {
    // ~2,500 Q/A documents; at 0.05 the sd of the rate is sqrt(0.05 * 0.95 / 2500) = 0.0044
    expect(Math.abs(toolShare(DOCS) - 0.05)).toBeLessThan(0.015);
    expect(Math.abs(toolShare(documents(4, 5000, { ...DEFAULT_CORPUS_RECIPE, toolPrior: 0.2 })) - 0.2)).toBeLessThan(0.025);
    expect(toolShare(documents(5, 1000, { ...DEFAULT_CORPUS_RECIPE, toolPrior: 0 }))).toBe(0);
    expect(toolShare(documents(6, 1000, { ...DEFAULT_CORPUS_RECIPE, toolPrior: 1 }))).toBe(1);
  });

  it('never shows the full tool loop: notebooks never ask, and some close with an answer line', () => {
    let answered = 0;
    for (const doc of DOCS) {
      expect(doc).not.toMatch(/Q:[\s\S]*```output[\s\S]*Answer:/);
      if (doc.includes('```output')) {
        expect(doc).not.toContain('Q:');
        if (/\nAnswer: -?\d+$/.test(doc)) answered++;
      }
    }
    expect(answered).toBeGreaterThan(0);
  });

  it('gives every Q/A document a clean final answer line the reward accepts', () => {
    for (const doc of qaDocs(DOCS)) {
      const [, expression, response] = QA.exec(doc)!;
      const answer = extractFinalAnswer(response);
      expect(answer).not.toBeNull();
      const p = arithmeticProblem('', 'easy' as const, expression, answer!);
      expect(answerReward(response, true, p)).toBe(1);
      if (response.includes('```')) expect(response).toMatch(TOOL_ANSWER);
    }
  });

  it('follows the tier mix', () => {
    const easyOnly = documents(7, 500, { ...DEFAULT_CORPUS_RECIPE, tierMix: { easy: 1, medium: 0, hard: 0 } });
    for (const doc of qaDocs(easyOnly)) expect(QA.exec(doc)![1]).toMatch(/^\d\+\d$/);
  });

  it('never contains a test-set expression', () => {
    const boundary = (e: string) => new RegExp(`(?<![\\d*+%-])${e.replace(/[*+]/g, '\\$&')}(?![\\d*+%-])`);
    const patterns = testSet().flatMap((p) => (p.expression === undefined ? [] : [boundary(p.expression)]));
    expect(DOCS.filter((doc) => patterns.some((pattern) => pattern.test(doc)))).toEqual([]);
    // the boundary pattern does find an expression where one stands alone
    expect('print(3+4)').toMatch(boundary('3+4'));
    expect('print(13+45)').not.toMatch(boundary('3+4'));
  });
});

describe('corpus against Python', () => {
  let notebooks: RegExpExecArray[];
  let qa: { expression: string; response: string }[];
  let printed: string[];

  beforeAll(async () => {
    notebooks = DOCS.map((d) => NOTEBOOK.exec(d)).filter((m): m is RegExpExecArray => m !== null);
    qa = qaDocs(DOCS).map((d) => {
      const [, expression, response] = QA.exec(d)!;
      return { expression, response };
    });
    const toolCode = qa.map((q) => TOOL_ANSWER.exec(q.response)?.[1]).filter((c): c is string => c !== undefined);
    printed = await pythonStdout([...notebooks.map((m) => m[2]), ...qa.map((q) => `print(${q.expression})`), ...toolCode]);
  }, 60_000);

  it('every notebook output is what Python prints for its code, and the sentence uses it', () => {
    expect(notebooks.length).toBeGreaterThan(1500);
    notebooks.forEach((m, i) => {
      expect(printed[i]).toBe(`${m[3]}\n`);
      expect(m[4]).toContain(m[3]);
    });
  });

  it('every Q/A answer is the value of its question', () => {
    qa.forEach((q, i) => expect(`${extractFinalAnswer(q.response)}\n`).toBe(printed[notebooks.length + i]));
  });

  it('the code in every tool-prior answer prints that answer', () => {
    const toolAnswers = qa.filter((q) => TOOL_ANSWER.test(q.response));
    expect(toolAnswers.length).toBeGreaterThan(80);
    toolAnswers.forEach((q, i) => {
      expect(printed[notebooks.length + qa.length + i]).toBe(`${TOOL_ANSWER.exec(q.response)![2]}\n`);
    });
  });
});

describe('validateCorpusRecipe', () => {
  it('accepts the default recipe and its JSON round trip', () => {
    expect(validateCorpusRecipe(JSON.parse(JSON.stringify(DEFAULT_CORPUS_RECIPE)))).toEqual(DEFAULT_CORPUS_RECIPE);
  });

  it('reads a recipe saved before the multi-step kind (stage 4 of the base model) as none of it', () => {
    const fourKinds = { arithmetic: 0.5, compose: 0.2, search: 0.12, errorProne: 0.18 };
    expect(validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, kindMix: fourKinds }).kindMix).toEqual({ ...fourKinds, multiStep: 0, chain: 0 });
    expect(validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, kindMix: { ...fourKinds, multiStep: 0.3 } }).kindMix).toEqual({ ...fourKinds, multiStep: 0.3, chain: 0 });
    expect(() => validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, kindMix: { ...fourKinds, multiStep: -1 } })).toThrow(/kindMix.multiStep/);
  });

  it('keeps an answer-line share, and leaves a recipe without one without one', () => {
    expect(validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, answerLineShare: 0.5 }).answerLineShare).toBe(0.5);
    expect(validateCorpusRecipe(DEFAULT_CORPUS_RECIPE)).not.toHaveProperty('answerLineShare');
  });

  it('names the bad field', () => {
    expect(() => validateCorpusRecipe(null)).toThrow(/object/);
    expect(() => validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, answerLineShare: 1.5 })).toThrow(/answerLineShare/);
    expect(() => validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, answerLineShare: 'half' })).toThrow(/answerLineShare/);
    expect(() => validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, toolPrior: 1.5 })).toThrow(/toolPrior/);
    expect(() => validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, notebookShare: -1 })).toThrow(/notebookShare/);
    expect(() => validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, qaShare: 0, notebookShare: 0, proseShare: 0 })).toThrow(/sum to zero/);
    expect(() => validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, tierMix: { easy: 1, medium: 'x', hard: 0 } })).toThrow(/tierMix.medium/);
    expect(() => validateCorpusRecipe({ ...DEFAULT_CORPUS_RECIPE, tierMix: { easy: 0, medium: 0, hard: 0 } })).toThrow(/tierMix sums/);
  });
});

describe('the corpus with every kind of problem', () => {
  const MIXED: CorpusRecipe = { ...DEFAULT_CORPUS_RECIPE, toolPrior: 0.1, kindMix: { arithmetic: 0.4, compose: 0.12, search: 0.08, errorProne: 0.1, multiStep: 0.3, chain: 0 } };
  const MIXED_DOCS = documents(21, 4000, MIXED);
  const CELL = /```python\n([\s\S]*?)\n```\n```output\n([\s\S]*?)\n```/g;
  const sandbox = createNodeSandbox({ size: 1 });
  afterAll(() => sandbox.close());

  it('fits a pretraining row of 256 with BOS and EOS, in tokenizer characters', () => {
    for (const doc of MIXED_DOCS) {
      expect(doc.length).toBeLessThanOrEqual(254);
      expect(decode(encode(doc))).toBe(doc);
    }
  });

  it('still never shows the full loop, and has repair, guess-check and digit-sum sessions of two cells', () => {
    for (const doc of MIXED_DOCS) {
      if (doc.startsWith('Q:')) expect(doc).not.toContain('```output');
      else expect(doc).not.toContain('Q:');
    }
    const twoCells = MIXED_DOCS.filter((d) => [...d.matchAll(CELL)].length === 2);
    expect(twoCells.some((d) => d.includes('SyntaxError'))).toBe(true);
    expect(twoCells.some((d) => d.includes('NameError'))).toBe(true);
    expect(twoCells.some((d) => d.includes('Too small.'))).toBe(true);
    expect(twoCells.some((d) => d.includes('Not above'))).toBe(true);
    // Digit-sum sessions: the second cell adds up the digits the first one printed, copied.
    const chains = twoCells.map((d) => [...d.matchAll(CELL)]).filter(([, second]) => /^print\(\d(\+\d)+\)$/.test(second[1]));
    expect(chains.length).toBeGreaterThan(100);
    for (const [first, second] of chains) expect(second[1]).toBe(`print(${[...first[2]].join('+')})`);
  });

  it('gives an error-prone question no tool answer, and compose and search questions their solution at the tool prior', () => {
    const qa = qaDocs(MIXED_DOCS);
    expect(qa.filter((d) => / x \d/.test(d.split('\n')[0])).every((d) => !d.includes('```'))).toBe(true);
    const toolAnswers = qa.filter((d) => d.includes('```python') && !d.startsWith('Q: what is '));
    expect(toolAnswers.length).toBeGreaterThan(10);
    for (const d of toolAnswers) expect(d).toMatch(TOOL_ANSWER_LINE);
  });

  it('without an answer-line share, draws exactly the corpus that base stage 5 read', () => {
    const stage5 = { ...MIXED, kindMix: { arithmetic: 0.4, compose: 0.12, search: 0.06, errorProne: 0.1, multiStep: 0.32, chain: 0 } };
    const hash = createHash('sha256').update(documents(5, 2000, stage5).join('\u0000')).digest('hex');
    // taken from the corpus code of commit f327eab, before the share existed
    expect(hash).toBe('7c1b9f7bcefa61bcb0eba4bc346d354da57b8f27403aefd3cb3fc586a10c8e2a');
  });

  it('closes notebooks and sessions with the answer line at the answer-line share', () => {
    const closings = (share: number) => {
      const notebooks = documents(22, 3000, { ...MIXED, answerLineShare: share }).filter((d) => d.includes('```output'));
      return { all: notebooks.length, answered: notebooks.filter((d) => /\nAnswer: -?\d+$/.test(d)).length, notebooks };
    };
    const never = closings(0);
    expect(never.answered).toBe(0);
    const always = closings(1);
    expect(always.answered).toBe(always.all);
    // every session kind closes with it too: repairs, guess-checks and digit sums
    for (const marker of ['SyntaxError', 'NameError', 'Too small.', 'Not above']) expect(always.notebooks.some((d) => d.includes(marker))).toBe(true);
    const half = closings(0.5);
    // ~1,200 notebooks: the sd of the share is sqrt(0.25 / 1200) = 0.014
    expect(Math.abs(half.answered / half.all - 0.5)).toBeLessThan(0.05);
    // the default's one in seven, for comparison
    const before = documents(22, 3000, MIXED).filter((d) => d.includes('```output'));
    expect(before.filter((d) => /\nAnswer: -?\d+$/.test(d)).length / before.length).toBeLessThan(0.25);
    for (const doc of always.notebooks) expect(doc).not.toContain('Q:');
  });

  it('never contains a held-out question, nor a held-out compose or search solution', () => {
    const heldOut = evalSet().filter((p) => p.kind !== 'arithmetic');
    const text = MIXED_DOCS.join('\n\n');
    expect(heldOut.filter((p) => text.includes(`Q: ${p.question}\n`))).toEqual([]);
    expect(heldOut.filter((p) => p.kind !== 'errorProne' && text.includes(p.solution))).toEqual([]);
  });

  it('shows every cell\'s output exactly as the environment writes what the sandbox ran', async () => {
    const cells = MIXED_DOCS.slice(0, 300).flatMap((d) => [...d.matchAll(CELL)].map((m) => ({ code: m[1], output: m[2] })));
    expect(cells.filter((c) => c.output.includes('Error')).length).toBeGreaterThan(10);
    const results = await Promise.all(cells.map((c) => sandbox.run(c.code, { timeoutMs: 5000, maxOutputBytes: 1024 })));
    const mismatches = cells.filter((c, i) => formatToolOutput(results[i], CORPUS_OUTPUT_CHARS) !== c.output);
    expect(mismatches).toEqual([]);
  }, 120_000);
});

const STAGE8: CorpusRecipe = {
  ...DEFAULT_CORPUS_RECIPE,
  toolPrior: 0.1,
  searchToolPrior: 0.5,
  answerLineShare: 0.5,
  kindMix: { arithmetic: 0.25, compose: 0.1, search: 0.1, errorProne: 0.08, multiStep: 0.12, chain: 0.35 },
};

describe('the chain kind in the corpus (base stages 8, 10 and 11)', () => {
  const DOCS8 = documents(23, 6000, STAGE8);
  const CELL = /```python\n([\s\S]*?)\n```\n```output\n([\s\S]*?)\n```/g;
  const divisionCells = (d: string) => [...d.matchAll(CELL)].filter(([, code]) => /^q = (\d+)\nprint\(q\/\/7, q%7==0\)$/.test(code));

  it('fits a pretraining row of 512 with BOS and EOS, and still never shows the full loop', () => {
    for (const doc of DOCS8) {
      expect(doc.length).toBeLessThanOrEqual(510);
      if (doc.startsWith('Q:')) expect(doc).not.toContain('```output');
      else expect(doc).not.toContain('Q:');
    }
  });

  it('divides by 7 one cell at a time, each cell copying the last quotient, until 7 no longer divides the number divided; sessions of two to six cells', () => {
    const sessions = DOCS8.filter((d) => !d.startsWith('Q:') && divisionCells(d).length > 0);
    const lengths = new Set<number>();
    for (const d of sessions) {
      const cells = divisionCells(d);
      lengths.add(cells.length);
      for (let i = 0; i < cells.length; i++) {
        const n = Number(/\d+/.exec(cells[i][1])![0]);
        expect(cells[i][2]).toBe(`${Math.floor(n / 7)} ${n % 7 === 0 ? 'True' : 'False'}`);
        if (i > 0) expect(`${n} True`).toBe(cells[i - 1][2]);
        // Every cell but the last divides exactly; the last says 7 no longer divides what is left.
        expect(n % 7 === 0).toBe(i < cells.length - 1);
      }
      // The answer is the number the last cell divided: the quotient the cell before it printed.
      const answer = /\d+/.exec(cells.at(-1)![1])![0];
      expect(d.endsWith(answer) || d.endsWith(`${answer}.`)).toBe(true);
    }
    expect([...lengths].sort()).toEqual([2, 3, 4, 5, 6]);
    // The one-cell loop is there too, so one call for every depth stays a thing the model has read.
    expect(DOCS8.filter((d) => d.includes('while n % 7 == 0:')).length).toBeGreaterThan(5);
  });

  it('writes each division cell\'s output exactly as real Python prints it, True when 7 divided the number divided', async () => {
    const numbers = [50421, 7203, 147, 999_992, 7, 38, 3];
    const printed = await pythonStdout(numbers.map(divisionCode));
    expect(printed).toEqual(numbers.map((n) => `${divisionOutput(n)}\n`));
    expect(numbers.map(divisionOutput)).toEqual(['7203 True', '1029 True', '21 True', '142856 True', '1 True', '5 False', '0 False']);
  }, 60_000);

  it('answers a chain question with its first division at the tool prior, and a search question with its loop at the search tool prior', () => {
    const qa = qaDocs(DOCS8);
    const chainQa = qa.filter((d) => d.includes('divided by 7 until'));
    const chainTool = chainQa.filter((d) => d.includes('```python'));
    for (const d of chainTool) {
      const start = /when (\d+) is divided/.exec(d)![1];
      expect(d).toMatch(new RegExp(`A: \`\`\`python\nq = ${start}\nprint\\(q//7, q%7==0\\)\n\`\`\`\nAnswer: \\d+$`));
    }
    // A share drawn n times lies within three standard errors of its probability.
    const withinNoise = (hits: number, n: number, p: number) => expect(Math.abs(hits / n - p)).toBeLessThan(3 * Math.sqrt((p * (1 - p)) / n));
    withinNoise(chainTool.length, chainQa.length, 0.1);
    const searchQa = qa.filter((d) => /x\*\*3 =|smallest n/.test(d));
    const searchTool = searchQa.filter((d) => d.includes('```python'));
    withinNoise(searchTool.length, searchQa.length, 0.5);
    for (const d of searchTool.filter((x) => x.includes('x**3'))) {
      const cube = /x\*\*3 = (\d+)\?/.exec(d)![1];
      expect(d).toContain(`if x**3 == ${cube}:`);
    }
    expect(() => validateCorpusRecipe({ ...STAGE8, searchToolPrior: 2 })).toThrow(/searchToolPrior/);
    expect(validateCorpusRecipe(JSON.parse(JSON.stringify(STAGE8)))).toEqual(STAGE8);
  });
});

describe('chain sessions that stop after a True (base stages 9 to 11)', () => {
  const STAGE9: CorpusRecipe = { ...STAGE8, chainStopShare: 0.5 };
  const CELL = /```python\n(q = (\d+)\nprint\(q\/\/7, q%7==0\))\n```\n```output\n(\d+) (True|False)\n```/g;

  it('closes on the quotient after a True at the stop share, and always after a False on the number that cell divided', () => {
    const sessions = documents(23, 6000, STAGE9).filter((d) => !d.startsWith('Q:') && d.includes('q%7==0'));
    let wentOn = 0;
    let stopped = 0;
    for (const d of sessions) {
      const cells = [...d.matchAll(CELL)];
      for (let i = 1; i < cells.length; i++) expect([cells[i - 1][3], cells[i - 1][4]]).toEqual([cells[i][2], 'True']);
      const [, , n, quotient, flag] = cells.at(-1)!;
      expect(Number(quotient)).toBe(Math.floor(Number(n) / 7));
      expect(flag).toBe(Number(n) % 7 === 0 ? 'True' : 'False');
      // After a True the session may stop on the quotient, a guess that it is the number left.
      const closedOn = flag === 'True' ? quotient : n;
      expect(d.endsWith(closedOn) || d.endsWith(`${closedOn}.`)).toBe(true);
      wentOn += cells.length - 1;
      if (flag === 'True') stopped++;
    }
    // A share drawn n times lies within three standard errors of its probability.
    const n = wentOn + stopped;
    expect(Math.abs(stopped / n - 0.5)).toBeLessThan(3 * Math.sqrt(0.25 / n));
    expect(n).toBeGreaterThan(300);
  });

  it('draws every document a recipe without the share drew, when no chain session is drawn', () => {
    const noChains = { ...STAGE9, kindMix: { ...STAGE9.kindMix, chain: 0 } };
    const { chainStopShare: _, ...withoutShare } = noChains;
    expect(documents(5, 400, noChains)).toEqual(documents(5, 400, withoutShare));
  });

  it('is checked and kept by the recipe reader', () => {
    expect(() => validateCorpusRecipe({ ...STAGE9, chainStopShare: 1.5 })).toThrow(/chainStopShare/);
    expect(validateCorpusRecipe(JSON.parse(JSON.stringify(STAGE9)))).toEqual(STAGE9);
    expect('chainStopShare' in validateCorpusRecipe({ ...STAGE9, chainStopShare: undefined })).toBe(false);
  });
});

describe('error-prone questions answered by a copy (base stage 12)', () => {
  const STAGE12: CorpusRecipe = { ...STAGE8, chainStopShare: 0.5, errorProneToolPrior: 0.5 };
  const DOCS12 = documents(29, 6000, STAGE12);
  const errorProneQa = qaDocs(DOCS12).filter((d) => / x \d/.test(d));

  it('copies the question as written into the block at the share, then the answer line, and never shows the output', () => {
    const copied = errorProneQa.filter((d) => d.includes('```python'));
    for (const d of copied) {
      const [, written, copy] = /^Q: what is (\d+ x \d+(?: \+ \d+)?)\?\nA: ```python\nprint\((.*)\)\n```\nAnswer: \d+$/.exec(d)!;
      expect(copy).toBe(written);
      expect(d).not.toContain('```output');
    }
    const n = errorProneQa.length;
    expect(Math.abs(copied.length / n - 0.5)).toBeLessThan(3 * Math.sqrt(0.25 / n));
    expect(n).toBeGreaterThan(100);
  });

  it('raises in real Python as the notebooks\' repair sessions show it', async () => {
    const code = /```python\n(.*)\n```/.exec(errorProneQa.find((d) => d.includes('```python'))!)![1];
    const printed = await pythonStdout([`try:\n    exec(${JSON.stringify(code)})\nexcept SyntaxError as e:\n    print(type(e).__name__, e.msg)`]);
    expect(printed).toEqual(['SyntaxError invalid syntax. Perhaps you forgot a comma?\n']);
  }, 60_000);

  it('draws every document a recipe without the share drew, when no error-prone question is drawn, and is checked by the recipe reader', () => {
    const noErrorProne = { ...STAGE12, kindMix: { ...STAGE12.kindMix, errorProne: 0 } };
    const { errorProneToolPrior: _, ...withoutShare } = noErrorProne;
    expect(documents(5, 400, noErrorProne)).toEqual(documents(5, 400, withoutShare));
    expect(() => validateCorpusRecipe({ ...STAGE12, errorProneToolPrior: -0.1 })).toThrow(/errorProneToolPrior/);
    expect(validateCorpusRecipe(JSON.parse(JSON.stringify(STAGE12)))).toEqual(STAGE12);
  });
});
