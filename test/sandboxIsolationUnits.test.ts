/**
 * The pure parts of interpreterIsolation.mjs: the heap cap written into a wasm binary, the output
 * capture's budget in UTF-8 bytes of the text returned, the interrupt buffer Pyodide reads, and the
 * baseline's copy of the heap and how it is written back.
 */
import { describe, expect, it } from 'vitest';
import { baselineRuns, capWasmMemory, consumingSignalView, heapCopy, OutputCapture, restoreBaseline, utf8Length } from '../src/core/sandbox/interpreterIsolation.mjs';

const PAGE = 65536;
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const EXPORT_MEMORY = [0x07, 0x07, 0x01, 0x03, 0x6d, 0x65, 0x6d, 0x02, 0x00]; // export "mem" = memory 0

/** A module whose only content is one exported memory with these limits (max in pages, or none). */
function moduleWithMemory(initialPages: number, maxPages: number | null): Uint8Array<ArrayBuffer> {
  const limits = maxPages === null ? [0x00, initialPages] : [0x01, initialPages, 0x80, 0x80, 0x04]; // 65536 pages
  if (maxPages !== null && maxPages !== 65536) throw new Error('the fixture encodes the 4 GiB maximum only');
  const content = [0x01, ...limits];
  return new Uint8Array([...HEADER, 0x05, content.length, ...content, ...EXPORT_MEMORY]);
}

function memoryOf(binary: Uint8Array<ArrayBuffer>): WebAssembly.Memory {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(binary));
  return instance.exports.mem as WebAssembly.Memory;
}

describe('capWasmMemory', () => {
  for (const [what, maxPages] of [
    ['a 4 GiB maximum', 65536],
    ['no maximum', null],
  ] as const) {
    it(`lowers ${what} to the cap, so growing past it fails in the engine`, () => {
      const memory = memoryOf(capWasmMemory(moduleWithMemory(1, maxPages), 4 * PAGE + 100));
      expect(memory.buffer.byteLength).toBe(PAGE);
      expect(memory.grow(3)).toBe(1);
      expect(memory.buffer.byteLength).toBe(4 * PAGE);
      expect(() => memory.grow(1)).toThrow(RangeError);
    });
  }

  it('leaves the rest of the module as it was', () => {
    const capped = capWasmMemory(moduleWithMemory(1, 65536), 2 * PAGE);
    expect([...capped.subarray(0, 8)]).toEqual(HEADER);
    expect([...capped.subarray(capped.length - EXPORT_MEMORY.length)]).toEqual(EXPORT_MEMORY);
    expect([...capped.subarray(8, capped.length - EXPORT_MEMORY.length)]).toEqual([0x05, 0x04, 0x01, 0x01, 0x01, 0x02]);
  });

  it('refuses a module that starts above the cap, or has no memory to cap', () => {
    expect(() => capWasmMemory(moduleWithMemory(5, null), 4 * PAGE)).toThrow('above the cap');
    expect(() => capWasmMemory(new Uint8Array([...HEADER]), 4 * PAGE)).toThrow('no memory');
  });
});

describe('OutputCapture', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  function capture(maxBytes: number, writes: [('stdout' | 'stderr'), Uint8Array][]) {
    let full = 0;
    const output = new OutputCapture(maxBytes, () => full++);
    for (const [stream, buffer] of writes) expect(output.write(stream, buffer)).toBe(buffer.length);
    return { ...output.finish(), truncated: output.truncated, full };
  }

  it('keeps complete text within the cap, across writes that split a character', () => {
    const smile = bytes('a\u{1F600}');
    expect(capture(9, [['stdout', smile.subarray(0, 3)], ['stderr', bytes('\u00e9')], ['stdout', smile.subarray(3)]])).toEqual({
      stdout: 'a\u{1F600}',
      stderr: '\u00e9',
      truncated: false,
      full: 0,
    });
  });

  it('drops a character the cap would cut, and everything after the write that passes it', () => {
    expect(capture(4, [['stdout', bytes('a\u20ac\u20ac')], ['stderr', bytes('b')]])).toEqual({ stdout: 'a\u20ac', stderr: '', truncated: true, full: 1 });
    expect(capture(2, [['stdout', bytes('a\u{1F600}')]])).toMatchObject({ stdout: 'a', truncated: true });
  });

  // Issue 25: the cap counted raw bytes, and each invalid byte came back as a three-byte U+FFFD.
  it('counts invalid bytes as the U+FFFD they return as', () => {
    const invalid = new Uint8Array(30).fill(0xff);
    const result = capture(30, [['stdout', invalid]]);
    expect(result).toMatchObject({ stdout: '\ufffd'.repeat(10), truncated: true, full: 1 });
    expect(utf8Length(result.stdout)).toBe(30);
  });

  it('counts a sequence left incomplete at the end, which returns as U+FFFD too', () => {
    expect(capture(4, [['stdout', new Uint8Array([0x61, 0xe2, 0x82])]])).toEqual({ stdout: 'a\ufffd', stderr: '', truncated: false, full: 0 });
    expect(capture(3, [['stdout', new Uint8Array([0x61, 0xe2, 0x82])]])).toMatchObject({ stdout: 'a', truncated: true, full: 1 });
  });

  it('measures UTF-8 as TextEncoder does', () => {
    for (const text of ['', 'abc', '\u00e9\u20ac\u{1F600}', '\ufffd\n']) expect(utf8Length(text)).toBe(bytes(text).length);
  });
});

describe('consumingSignalView', () => {
  const SIGINT = 2;
  /** Pyodide's check, in its two steps, with the host's store landing between them. */
  function checkWithStoreBetween(view: { [index: number]: number }, buffer: Int32Array): number {
    const seen = view[0];
    Atomics.store(buffer, 0, SIGINT);
    view[0] = 0;
    return seen;
  }

  it('keeps an interrupt stored between the read and the clear for the next check', () => {
    const buffer = new Int32Array(new SharedArrayBuffer(4));
    const view = consumingSignalView(buffer);
    expect(checkWithStoreBetween(view, buffer)).toBe(0);
    expect(view[0]).toBe(SIGINT);
    expect(view[0]).toBe(0);
    // The raw buffer, as Pyodide had it, loses the interrupt.
    expect(checkWithStoreBetween(buffer, buffer)).toBe(0);
    expect(buffer[0]).toBe(0);
  });

  it("reads a pending interrupt once, and works on the browser's one-byte buffer", () => {
    const buffer = new Uint8Array(new SharedArrayBuffer(1));
    const view = consumingSignalView(buffer);
    expect(view[0]).toBe(0);
    buffer[0] = SIGINT;
    expect(view[0]).toBe(SIGINT);
    expect(buffer[0]).toBe(0);
    expect(view[0]).toBe(0);
  });
});

describe('heapCopy', () => {
  const heap = Uint8Array.from({ length: 3 * PAGE }, (_, i) => (i * 7) % 251);

  it("writes into a restore's spare bytes when they hold the heap: no new memory", () => {
    const spare = new ArrayBuffer(heap.length + 128);
    const copy = heapCopy(heap, spare);
    expect(copy.buffer).toBe(spare);
    expect(copy).toEqual(heap);
    heap[5] ^= 1; // a copy, not a view of the heap
    expect(copy[5]).not.toBe(heap[5]);
    heap[5] ^= 1;
  });

  it('copies into new memory, and lets the spare bytes go, when they are too few', () => {
    const spare = new ArrayBuffer(heap.length - 1);
    const copy = heapCopy(heap, spare);
    expect(copy.buffer).not.toBe(spare);
    expect(spare.byteLength).toBe(0);
    expect(copy).toEqual(heap);
  });

  it('copies into new memory when there are none', () => {
    const copy = heapCopy(heap, null);
    expect(copy).toEqual(heap);
    expect(copy.buffer).not.toBe(heap.buffer);
  });
});

describe('baselineRuns and restoreBaseline', () => {
  const BLOCK = 64;
  // Blocks: data, zeros, zeros, data, zeros, then a partial data block of 10 bytes.
  const baseline = new Uint8Array(5 * BLOCK + 10);
  baseline.fill(3, 0, BLOCK);
  baseline[3 * BLOCK + BLOCK - 1] = 9; // one byte makes a block data
  baseline.fill(5, 5 * BLOCK);

  it('splits the baseline into runs of whole blocks, all zeros or not, covering every byte once', () => {
    expect(baselineRuns(baseline, BLOCK)).toEqual([
      { start: 0, end: BLOCK, zero: false },
      { start: BLOCK, end: 3 * BLOCK, zero: true },
      { start: 3 * BLOCK, end: 4 * BLOCK, zero: false },
      { start: 4 * BLOCK, end: 5 * BLOCK, zero: true },
      { start: 5 * BLOCK, end: 5 * BLOCK + 10, zero: false },
    ]);
    // A view at an odd offset is read byte by byte, with the same answer.
    const shifted = new Uint8Array(baseline.length + 1);
    shifted.set(baseline, 1);
    expect(baselineRuns(shifted.subarray(1), BLOCK)).toEqual(baselineRuns(baseline, BLOCK));
  });

  it('writes back every byte a run changed, in zero runs and data runs alike, and zeroes memory past the baseline', () => {
    const heap = new Uint8Array(baseline.length + BLOCK);
    heap.set(baseline);
    for (const at of [0, BLOCK + 7, 3 * BLOCK, 3 * BLOCK + BLOCK - 1, 4 * BLOCK + 63, 5 * BLOCK + 9, baseline.length + 5]) heap[at] = 0xee;
    restoreBaseline(heap, baseline, baselineRuns(baseline, BLOCK));
    expect(heap.subarray(0, baseline.length)).toEqual(baseline);
    expect(heap.subarray(baseline.length).every((byte) => byte === 0)).toBe(true);
  });
});

