/**
 * What keeps one program from changing the next: the JavaScript side of a sandbox interpreter,
 * shared by the browser worker (browser/sandbox/python.worker.ts) and the Node child's Pyodide thread
 * (src/node/sandbox/pyodideThread.mjs). Plain JavaScript because the Node child has no TypeScript
 * loader; the types are in interpreterIsolation.d.mts.
 *
 * The mechanism, all of it outside the program's reach:
 * - The wasm heap is copied once the runner is in place (the baseline) and written back after every
 *   run (its zero blocks filled, the rest copied), so every Python object, module, cache, hook and
 *   C static starts each program as it was.
 * - The file system outside /tmp and the working directory is read-only below Python: its nodes
 *   are frozen in the file system's own operations (no write, truncate, chmod, utime, create,
 *   unlink or rename, /dev and /proc included), so the stdlib cannot be damaged at all.
 * - What lives outside the heap is checked: calls from the interpreter into JavaScript are counted
 *   (a run that makes any beyond the host's own fixed handful reached JavaScript, where the heap
 *   restore cannot follow: timers, JS objects, the interrupt buffer), /tmp and the working
 *   directory are emptied and their modes and times put back, file descriptors the run left open
 *   are closed and the baseline's put back as they were, the working directory is set back, the
 *   inode counter is reset, and the rest of the file system must match the baseline. Any doubt
 *   answers `replace`, and the host recycles the interpreter instead of restoring it.
 * - Memory: the heap's maximum is written into the wasm binary before it is compiled, so no grow
 *   from anywhere passes it; every byte a run can put outside the heap without reaching JavaScript
 *   (file contents, the first write included, pipe buffers, new nodes, their names and symlink
 *   targets) is charged to one budget per run, and refused (ENOSPC) past it.
 * - Output: stdout and stderr are counted into one budget by Pyodide's raw write handlers, in
 *   UTF-8 bytes of the text returned (after decoding); the write that passes it sets the interrupt,
 *   so a flood stops.
 */

/**
 * Imports the interpreter calls in ordinary runs (system calls on the virtual file system, clocks,
 * maths, heap growth, indirect calls, time.sleep's question whether it may suspend, fcntl's
 * question whether the descriptor is a socket): not counted. Every other import is a crossing into
 * JavaScript that a program has no ordinary reason to make (sockets included).
 */
const UNCOUNTED_IMPORTS =
  /^(?:__syscall_(?!socket$|connect$|bind$|listen$|accept4$|sendto$|recvfrom$|sendmsg$|recvmsg$|getpeername$|getsockname$|getsockopt$)|fd_|clock_|environ_|random_get$|proc_exit$|exit$|invoke_|can_run_sync_js$|_try_fcntl64$|_PyEM_TrampolineCall_JS$|_Py_CheckEmscriptenSignals_Helper$|emscripten_resize_heap$|emscripten_get_heap_max$|emscripten_date_now$|emscripten_get_now|_emscripten_get_now_is_monotonic$|emscripten_math_|_(?:gmtime|localtime|mktime|timegm|tzset|mmap|munmap|msync)_js$|__call_sighandler$|_emscripten_throw_longjmp$|__assert_fail$|_abort_js$|_Unwind_|emscripten_stack_|__asctime_r$|strptime)/;

/**
 * Imports answered here instead of by Pyodide. umask: in Node's main thread Pyodide would set the
 * host process's umask, elsewhere it answers 0 and keeps nothing; 0 everywhere, so it is stateless
 * and costs no interpreter.
 */
const REPLACED_IMPORTS = { __syscall_umask_js: () => 0 };

const WASM_PAGE_BYTES = 65536;
const SIGINT = 2;
// emscripten's errno numbering
const EACCES = 2;
const ENOSPC = 51;
const EROFS = 69;
const WORKDIR = '/home/pyodide';
const SCRATCH_DIRS = ['/tmp', WORKDIR];
/**
 * What a new node costs in JS memory besides its contents (the object, its table entry): charged,
 * so a million empty files or directories count against the run's budget like their bytes would.
 */
const NODE_BYTES = 256;
/** A JS string may take two bytes a character: names and symlink targets are charged at that. */
const CHAR_BYTES = 2;

function readLeb(bytes, at) {
  let value = 0;
  let scale = 1;
  let byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte & 0x80);
  return [value, at];
}

function leb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

/**
 * The same wasm binary with the maximum of its memory set to `maxBytes` (rounded down to pages).
 * A grow past it fails inside the engine, whoever asks: emscripten, a program that reached the
 * Memory object, or a second wasm module importing it.
 */
export function capWasmMemory(binary, maxBytes) {
  const bytes = new Uint8Array(binary);
  const maxPages = Math.floor(maxBytes / WASM_PAGE_BYTES);
  let at = 8; // magic and version
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, contentAt] = readLeb(bytes, at + 1);
    const end = contentAt + size;
    if (id === 5) {
      let [count, p] = readLeb(bytes, contentAt);
      const content = leb(count);
      for (let i = 0; i < count; i++) {
        const flags = bytes[p++];
        if (flags & 0x04) throw new Error('64-bit wasm memory is not supported');
        let initial;
        [initial, p] = readLeb(bytes, p);
        let maximum = Infinity;
        if (flags & 0x01) [maximum, p] = readLeb(bytes, p);
        if (initial > maxPages) throw new Error(`the heap starts at ${initial} pages, above the cap of ${maxPages}`);
        content.push(flags | 0x01, ...leb(initial), ...leb(Math.min(maximum, maxPages)));
      }
      const header = [5, ...leb(content.length)];
      const out = new Uint8Array(at + header.length + content.length + bytes.length - end);
      out.set(bytes.subarray(0, at), 0);
      out.set(header, at);
      out.set(content, at + header.length);
      out.set(bytes.subarray(end), at + header.length + content.length);
      return out;
    }
    at = end;
  }
  throw new Error('the wasm module defines no memory to cap');
}

function countingModule(module, counts) {
  const wrappers = new Map();
  return new Proxy(module, {
    get(target, name, receiver) {
      if (Object.hasOwn(REPLACED_IMPORTS, name)) return REPLACED_IMPORTS[name];
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function' || typeof name !== 'string' || UNCOUNTED_IMPORTS.test(name)) return value;
      let counted = wrappers.get(name);
      if (!counted) {
        counted = function (...args) {
          counts.set(name, (counts.get(name) ?? 0) + 1);
          return value.apply(this, args);
        };
        wrappers.set(name, counted);
      }
      return counted;
    },
  });
}

function isPyodideImports(imports) {
  return typeof imports?.env?._PyEM_TrampolineCall_JS === 'function';
}

/**
 * Call before loadPyodide: the next instantiation of Pyodide's wasm module gets its memory capped
 * and its imports counted. `counts` (import name -> calls) is what IsolatedRunner reads; `used`
 * says whether the hook saw the instantiation (if not, the interpreter is not isolated: fail).
 */
export function hookPyodideInstantiation({ heapLimitBytes }) {
  const counts = new Map();
  const original = { instantiate: WebAssembly.instantiate, instantiateStreaming: WebAssembly.instantiateStreaming };
  const hook = { counts, used: false, release };
  function release() {
    WebAssembly.instantiate = original.instantiate;
    if (original.instantiateStreaming) WebAssembly.instantiateStreaming = original.instantiateStreaming;
  }
  function instantiateCapped(bytes, imports) {
    hook.used = true;
    release();
    const counted = { ...imports, env: countingModule(imports.env, counts) };
    if (imports.wasi_snapshot_preview1) counted.wasi_snapshot_preview1 = countingModule(imports.wasi_snapshot_preview1, counts);
    return original.instantiate.call(WebAssembly, capWasmMemory(bytes, heapLimitBytes), counted);
  }
  WebAssembly.instantiate = function (source, imports) {
    if (source instanceof WebAssembly.Module || !isPyodideImports(imports)) return original.instantiate.call(this, source, imports);
    return instantiateCapped(source, imports);
  };
  if (original.instantiateStreaming) {
    WebAssembly.instantiateStreaming = async function (source, imports) {
      if (!isPyodideImports(imports)) return original.instantiateStreaming.call(this, source, imports);
      const response = await source;
      return instantiateCapped(await response.arrayBuffer(), imports);
    };
  }
  return hook;
}

/**
 * loadPyodide's options for a memory snapshot request (core/sandbox/memorySnapshot.ts): start from
 * the given bytes, or keep what is needed to make one after the load, or neither.
 */
export function snapshotLoadOptions(memorySnapshot) {
  if (memorySnapshot && 'load' in memorySnapshot) return { _loadSnapshot: memorySnapshot.load };
  if (memorySnapshot && 'make' in memorySnapshot) return { _makeSnapshot: true };
  return {};
}

/** Frees an ArrayBuffer's memory now, whoever still holds it: moved into a port that is closed, it is dropped with the message. */
function freeNow(buffer) {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(null, [buffer]);
  port1.close();
  port2.close();
}

/**
 * Right after loadPyodide, before any program runs: drops the second '' a restore puts on sys.path,
 * so that programs see what they see after a load. A restore's bytes are taken from Pyodide (it
 * keeps its options, so they would be held for the interpreter's life) and returned as `spare`,
 * memory the runner's baseline can be copied into; asked to make a snapshot, this makes it and
 * returns its bytes as `made`.
 */
export function settleSnapshotStart(pyodide, memorySnapshot) {
  if (memorySnapshot && 'load' in memorySnapshot) {
    const restored = memorySnapshot.load.buffer;
    // Moved, not copied: Pyodide's own reference is left detached.
    const spare = structuredClone(restored, { transfer: [restored] });
    pyodide.runPython('import sys\nsys.path[:] = list(dict.fromkeys(sys.path))');
    return { made: null, spare };
  }
  return { made: memorySnapshot && 'make' in memorySnapshot ? pyodide.makeMemorySnapshot() : null, spare: null };
}

/**
 * A copy of the heap, written into `spare` when it is large enough. Memory a process has not
 * written yet costs a page fault a page on the first write (on this project's VMs about 80 ms of a
 * core for 30 MiB); a restore's snapshot bytes were written when they arrived.
 */
export function heapCopy(heap, spare) {
  if (!spare) return heap.slice();
  if (spare.byteLength < heap.length) {
    freeNow(spare);
    return heap.slice();
  }
  const copy = new Uint8Array(spare, 0, heap.length);
  copy.set(heap);
  return copy;
}

/** The block the baseline's zeros are found in: 16 KiB, about 20 runs over a fresh interpreter's 30 MiB. */
const BASELINE_BLOCK_BYTES = 16384;

/**
 * The baseline as runs of whole blocks, each run all zeros or not: { start, end, zero }. Half of a
 * fresh interpreter's heap is zeros (most of its 10 MiB stack, the memory above the allocator's
 * break); restoreBaseline fills those, which only writes, where a copy also reads: about 0.7 ms
 * instead of 1.1 ms for 30 MiB on this project's VMs (scripts/sandboxResetCost.ts). Every byte is still written back,
 * whatever a run changed.
 */
export function baselineRuns(baseline, blockBytes = BASELINE_BLOCK_BYTES) {
  const runs = [];
  for (let start = 0; start < baseline.length; start += blockBytes) {
    const end = Math.min(start + blockBytes, baseline.length);
    const zero = allZero(baseline, start, end);
    const last = runs.at(-1);
    if (last && last.zero === zero) last.end = end;
    else runs.push({ start, end, zero });
  }
  return runs;
}

function allZero(bytes, start, end) {
  const aligned = (bytes.byteOffset + start) % 4 === 0 && (end - start) % 4 === 0;
  if (aligned) return new Uint32Array(bytes.buffer, bytes.byteOffset + start, (end - start) / 4).every((word) => word === 0);
  return bytes.subarray(start, end).every((byte) => byte === 0);
}

/** Writes `baseline` back over `heap` by its runs (baselineRuns); memory past the baseline is zeroed. */
export function restoreBaseline(heap, baseline, runs) {
  for (const { start, end, zero } of runs) {
    if (zero) heap.fill(0, start, end);
    else heap.set(baseline.subarray(start, end), start);
  }
  if (heap.length > baseline.length) heap.fill(0, baseline.length);
}

/** Bytes of `text` in UTF-8 (decoded text has no lone surrogates). */
export function utf8Length(text) {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The longest start of `text` within `maxBytes` of UTF-8, never splitting a character. */
function utf8Prefix(text, maxBytes) {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const unit = text.charCodeAt(end);
    const pair = unit >= 0xd800 && unit <= 0xdbff && end + 1 < text.length;
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += pair ? 2 : 1;
  }
  return text.slice(0, end);
}

/**
 * stdout and stderr of one run in one budget, counted in UTF-8 bytes of the text the host returns:
 * bytes are decoded as they arrive, so invalid ones count as the three bytes of the U+FFFD that
 * stands for each. The write that passes the budget calls onFull; nothing is kept after it.
 */
export class OutputCapture {
  constructor(maxBytes, onFull) {
    this.room = Math.max(0, maxBytes);
    this.streams = { stdout: { decoder: new TextDecoder(), parts: [] }, stderr: { decoder: new TextDecoder(), parts: [] } };
    this.truncated = false;
    this.onFull = onFull;
  }

  write(stream, buffer) {
    if (!this.truncated) {
      // Every byte decodes to at least one (an invalid one to three, a held-back partial sequence
      // of up to three to one U+FFFD later): past room + 4 bytes the cap is passed anyway.
      const part = buffer.length > this.room + 4 ? buffer.subarray(0, this.room + 4) : buffer;
      this.keep(stream, this.streams[stream].decoder.decode(part, { stream: true }));
    }
    return buffer.length; // all of it "written": Python must not retry what was dropped
  }

  keep(stream, text) {
    const bytes = utf8Length(text);
    if (bytes <= this.room) {
      this.streams[stream].parts.push(text);
      this.room -= bytes;
      return;
    }
    this.streams[stream].parts.push(utf8Prefix(text, this.room));
    this.room = 0;
    this.truncated = true;
    this.onFull();
  }

  /** The run's text, once it is over: a sequence still incomplete at the end is a U+FFFD, counted too. */
  finish() {
    for (const stream of ['stdout', 'stderr']) {
      if (!this.truncated) this.keep(stream, this.streams[stream].decoder.decode());
    }
    return { stdout: this.streams.stdout.parts.join(''), stderr: this.streams.stderr.parts.join('') };
  }
}

function describeFailure(error) {
  const code = error?.code ? `${error.code}${error.permission ? ` (${error.permission})` : ''}: ` : '';
  const text = typeof error?.message === 'string' ? `${error.name ?? 'Error'}: ${error.message}` : String(error);
  return `${code}${text}`.slice(0, 2000);
}

/** Bytes a file's contents hold (allocated, not used): what a write or a truncate grows. */
function capacity(node) {
  return node.contents?.length ?? 0;
}

/**
 * The file system below Python: everything outside the scratch directories frozen, every byte a
 * run puts outside the heap charged, and the whole of it brought back to the baseline after a run.
 * Built on MEMFS's own node and stream operations (private, like the heap: pin the version).
 */
class FileSystemGuard {
  constructor(module, FS) {
    this.FS = FS;
    this.module = module;
    this.scratch = new Set(SCRATCH_DIRS.map((dir) => FS.lookupPath(dir).node));
    for (const dir of this.scratch) {
      if (Object.keys(dir.contents).length > 0) throw new Error('a scratch directory is not empty at the baseline');
    }
    /** Bytes this run may still allocate outside the heap; null between runs (the host is not charged). */
    this.room = null;
    this.frozen = new WeakSet();
    this.install();
  }

  /** Refused (EROFS) when the node is frozen. */
  guard(node) {
    if (this.frozen.has(node)) throw new this.FS.ErrnoError(EROFS);
  }

  /**
   * Charges `bytes` to the run; ENOSPC once the budget is passed. Always charged: a file grows by
   * more than the write that grows it (MEMFS doubles small ones), so the last growth may pass the
   * budget, and then every later one is refused up front.
   */
  charge(bytes) {
    if (this.room === null || !(bytes > 0)) return;
    this.room -= bytes;
    if (this.room < 0) throw new this.FS.ErrnoError(ENOSPC);
  }

  /** Runs `grow`, refused up front when `needed` bytes do not fit, then charged what `size()` grew by. */
  charged(needed, size, grow) {
    if (this.room !== null && needed > this.room) throw new this.FS.ErrnoError(ENOSPC);
    const before = size();
    const result = grow();
    this.charge(size() - before);
    return result;
  }

  install() {
    const { MEMFS, PIPEFS, TTY } = this.module;
    const guard = this;
    const tables = MEMFS.ops_table;
    const dirOps = tables.dir.node;
    const { mknod, symlink, unlink, rmdir, rename } = dirOps;
    const newNode = (parent, name, extra) => {
      guard.guard(parent);
      guard.charge(NODE_BYTES + CHAR_BYTES * (String(name).length + extra));
    };
    dirOps.mknod = function (parent, name, mode, dev) {
      newNode(parent, name, 0);
      return mknod.call(this, parent, name, mode, dev);
    };
    dirOps.symlink = function (parent, name, target) {
      newNode(parent, name, String(target).length);
      return symlink.call(this, parent, name, target);
    };
    dirOps.unlink = function (parent, name) {
      guard.guard(parent);
      return unlink.call(this, parent, name);
    };
    dirOps.rmdir = function (parent, name) {
      guard.guard(parent);
      return rmdir.call(this, parent, name);
    };
    dirOps.rename = function (node, newDir, newName) {
      guard.guard(node);
      guard.guard(node.parent);
      guard.guard(newDir);
      guard.charge(CHAR_BYTES * String(newName).length);
      return rename.call(this, node, newDir, newName);
    };
    // chmod, utime, chown and truncate all end here; a truncate that grows a file is charged.
    const setattr = MEMFS.node_ops.setattr;
    const guardedSetattr = function (node, attr) {
      guard.guard(node);
      if (attr.size === undefined) return setattr.call(this, node, attr);
      return guard.charged(attr.size - capacity(node), () => capacity(node), () => setattr.call(this, node, attr));
    };
    MEMFS.node_ops.setattr = guardedSetattr;
    for (const table of [tables.dir, tables.file, tables.link, tables.chrdev]) table.node.setattr = guardedSetattr;
    // Every write to a file ends here (msync too): the first write to an empty file takes a copy of
    // the data without growing anything, so the charge is what the contents grew by, whatever path.
    const write = MEMFS.stream_ops.write;
    const guardedWrite = function (stream, buffer, offset, length, position, canOwn) {
      const node = stream.node;
      guard.guard(node);
      return guard.charged(
        position + length - capacity(node),
        () => capacity(node),
        () => write.call(this, stream, buffer, offset, length, position, canOwn),
      );
    };
    MEMFS.stream_ops.write = guardedWrite;
    tables.file.stream.write = guardedWrite;
    // Pipe buffers grow by whole buckets, and a pipe is a JS array like a file.
    const pipeWrite = PIPEFS.stream_ops.write;
    PIPEFS.stream_ops.write = function (stream, buffer, offset, length, position) {
      const pipe = stream.node.pipe;
      return guard.charged(
        length,
        () => (pipe.buckets?.length ?? 0) * PIPEFS.BUCKET_BUFFER_SIZE,
        () => pipeWrite.call(this, stream, buffer, offset, length, position),
      );
    };
    // The terminals keep an unwritten line in a JS array, their output goes nowhere a result can
    // show and their input is the host's: a program has no terminal.
    for (const name of ['read', 'write']) {
      const operation = TTY.stream_ops[name];
      TTY.stream_ops[name] = function (...args) {
        if (guard.room !== null) throw new guard.FS.ErrnoError(EACCES);
        return operation.apply(this, args);
      };
    }
  }

  /** Every node of the tree outside the scratch directories (those themselves included), at the baseline. */
  treeNodes() {
    const { FS } = this;
    const nodes = [FS.root];
    const walk = (dir) => {
      for (const name of Object.keys(dir.contents)) {
        const node = dir.contents[name];
        nodes.push(node);
        if (FS.isDir(node.mode) && !this.scratch.has(node) && !node.mounted) walk(node);
      }
    };
    walk(FS.root);
    return nodes;
  }

  /** Freezes everything outside the scratch directories and records what tidy() brings back. */
  freeze() {
    const { FS } = this;
    this.nodes = this.treeNodes().map((node) => ({
      node,
      parent: node.parent,
      name: node.name,
      id: node.id,
      mode: node.mode,
      rdev: node.rdev,
      link: node.link,
      contents: node.contents,
      size: node.usedBytes,
      children: FS.isDir(node.mode) ? Object.keys(node.contents).length : -1,
      times: [node.atime, node.mtime, node.ctime],
    }));
    for (const { node } of this.nodes) if (!this.scratch.has(node)) this.frozen.add(node);
    // Nodes outside the tree are in the lookup table too (the roots of the pipe and socket file
    // systems, /proc/self/fd's mount): all of them stay.
    this.known = new WeakSet(this.nodes.map(({ node }) => node));
    for (const chain of FS.nameTable) for (let node = chain; node; node = node.name_next) this.known.add(node);
    this.streams = FS.streams.map((stream) => stream && { stream, position: stream.position, flags: stream.flags });
    this.cwd = FS.cwd();
    this.nextInode = FS.nextInode;
    this.nextPipe = this.module.PIPEFS.nextname.current;
  }

  /**
   * Back to the baseline after a run: descriptors closed or put back, everything the run made
   * dropped from the tree and the lookup table, scratch modes and every node's times put back,
   * counters reset. Returns why that could not be done, or null.
   */
  tidy() {
    const { FS } = this;
    const streams = FS.streams;
    for (let fd = 0; fd < Math.max(streams.length, this.streams.length); fd++) {
      const kept = this.streams[fd];
      if (kept) {
        if (streams[fd] !== kept.stream) return 'the run replaced a file descriptor of the baseline';
        kept.stream.position = kept.position;
        kept.stream.flags = kept.flags;
      } else if (streams[fd]) {
        FS.close(streams[fd]);
      }
    }
    if (streams.length > this.streams.length) streams.length = this.streams.length;
    this.forgetNewNodes();
    for (const saved of this.nodes) {
      const { node } = saved;
      if (node.parent !== saved.parent || node.name !== saved.name || node.id !== saved.id) return 'the run changed files outside /tmp and the working directory';
      if (this.scratch.has(node)) {
        node.contents = {};
        node.mode = saved.mode; // the program may have locked its own directory
      } else if (!this.unchanged(saved)) {
        return 'the run changed files outside /tmp and the working directory';
      }
      [node.atime, node.mtime, node.ctime] = saved.times;
    }
    FS.chdir(this.cwd);
    FS.nextInode = this.nextInode;
    this.module.PIPEFS.nextname.current = this.nextPipe;
    return null;
  }

  /** A frozen node as it was: a backstop behind the freeze, which refuses every change. */
  unchanged(saved) {
    const { node } = saved;
    if (node.mode !== saved.mode || node.rdev !== saved.rdev || node.link !== saved.link) return false;
    if (node.contents !== saved.contents || node.usedBytes !== saved.size) return false;
    if (saved.children >= 0 && Object.keys(node.contents).length !== saved.children) return false;
    return node === this.FS.root || node.parent.contents[node.name] === node;
  }

  /**
   * Drops every node the run made from the file system's lookup table (its files, pipes, names
   * crafted to collide, a `__proto__` entry no directory listing shows), so the table is the
   * baseline's again.
   */
  forgetNewNodes() {
    const table = this.FS.nameTable;
    for (let i = 0; i < table.length; i++) {
      let previous = null;
      for (let node = table[i]; node; node = node.name_next) {
        if (this.known.has(node)) previous = node;
        else if (previous) previous.name_next = node.name_next;
        else table[i] = node.name_next;
      }
    }
  }
}

/**
 * What Pyodide is given as its interrupt buffer. Its check reads the buffer and then writes 0, two
 * steps: a signal the host stores between them is lost, and a tight loop checks so often that this
 * happened to about one interrupt in twenty. Here the read is the clear, one atomic exchange.
 */
export function consumingSignalView(buffer) {
  return Object.freeze(
    Object.defineProperty({}, 0, {
      get: () => (buffer[0] === 0 ? 0 : Atomics.exchange(buffer, 0, 0)), // the cheap read first: it runs every 50 bytecodes
      set: () => {}, // the check's own clear: the exchange already did it
    }),
  );
}

/**
 * One Pyodide interpreter that runs programs from a fixed baseline. Make it with start() right
 * after loadPyodide (with the hook from hookPyodideInstantiation); then, per program, run() and,
 * once its reply is on its way, reset().
 */
export class IsolatedRunner {
  static start(pyodide, hook, { runnerSource, interruptBuffer, fileBytesPerRun, spare = null }) {
    if (!hook.used) throw new Error("Pyodide's wasm module was not instantiated through the isolation hook");
    return new IsolatedRunner(pyodide, hook.counts, runnerSource, interruptBuffer, fileBytesPerRun, spare);
  }

  constructor(pyodide, counts, runnerSource, interruptBuffer, fileBytesPerRun, spare) {
    this.module = pyodide._module; // private, but the only handle on the heap and MEMFS: pin the version
    this.counts = counts;
    this.interruptBuffer = interruptBuffer;
    this.fileBytesPerRun = fileBytesPerRun;
    this.capture = null;
    this.doomed = false;
    const onFull = () => {
      if (this.interruptBuffer) Atomics.store(this.interruptBuffer, 0, SIGINT);
    };
    const write = (stream) => (buffer) => (this.capture ? this.capture.write(stream, buffer) : buffer.length);
    pyodide.setStdout({ write: write('stdout') });
    pyodide.setStderr({ write: write('stderr') });
    pyodide.setStdin({ error: true });
    if (interruptBuffer) pyodide.setInterruptBuffer(consumingSignalView(interruptBuffer));
    this.newCapture = (maxOutputBytes) => new OutputCapture(maxOutputBytes, onFull);
    this.runner = pyodide.runPython(runnerSource, { globals: pyodide.toPy({}) });
    this.runner('pass'); // compiles the runner's paths, so the baseline has them
    this.files = new FileSystemGuard(this.module, pyodide.FS);
    this.files.freeze();
    this.baselineHeap = heapCopy(this.module.HEAPU8, spare);
    this.baselineRuns = baselineRuns(this.baselineHeap);
    this.footprint = this.calibrate();
    if (this.footprint !== this.calibrate()) throw new Error("the host's own calls into JavaScript are not the same on every run");
  }

  /** The calls into JavaScript a run makes when the program makes none: the host's own handful. */
  calibrate() {
    this.counts.clear();
    this.runner('pass');
    const footprint = this.footprintNow();
    this.restoreHeap();
    return footprint;
  }

  footprintNow() {
    return [...this.counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, calls]) => `${name}:${calls}`).join(' ');
  }

  /**
   * Runs one program. The reply's text fields come from here, not from Python: stdout and stderr
   * from the capture, the runner's JSON as a string or nothing. `replace` means do not reuse.
   */
  run(code, maxOutputBytes) {
    const capture = this.newCapture(maxOutputBytes);
    this.capture = capture;
    this.files.room = this.fileBytesPerRun;
    this.counts.clear();
    let output;
    let failure;
    try {
      output = this.runner(code);
    } catch (error) {
      failure = describeFailure(error);
    }
    this.capture = null;
    this.files.room = null;
    const { stdout, stderr } = capture.finish();
    if (this.interruptBuffer) Atomics.store(this.interruptBuffer, 0, 0); // an output-cap interrupt Python never saw
    const doubt = failure !== undefined ? 'the interpreter failed' : this.doubt(output);
    this.doomed = doubt !== null;
    return {
      ...(typeof output === 'string' && { output }),
      ...(failure !== undefined && { failure }),
      stdout,
      stderr,
      truncated: capture.truncated,
      replace: this.doomed,
      reason: doubt,
      heapBytes: this.module.HEAPU8.length,
    };
  }

  /** After run()'s reply is sent: back to the baseline (skipped when the interpreter is to be replaced). */
  reset() {
    if (!this.doomed) this.restoreHeap();
  }

  restoreHeap() {
    restoreBaseline(this.module.HEAPU8, this.baselineHeap, this.baselineRuns);
  }

  /** Why this interpreter cannot be brought back to the baseline, or null. Tidies what it can. */
  doubt(output) {
    if (typeof output !== 'string') return "the runner's answer was not text";
    if (this.footprintNow() !== this.footprint) return 'the run called into JavaScript';
    try {
      return this.files.tidy();
    } catch (error) {
      return `the file system could not be tidied: ${describeFailure(error)}`;
    }
  }
}
