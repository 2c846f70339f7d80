/**
 * What keeps one program from changing the next: the JavaScript side of a sandbox interpreter,
 * shared by the browser worker (workers/python.worker.ts) and the Node child's Pyodide thread
 * (src/node/sandbox/pyodideThread.mjs). Plain JavaScript because the Node child has no TypeScript
 * loader; the types are in interpreterIsolation.d.mts.
 *
 * The mechanism, all of it outside the program's reach:
 * - The wasm heap is copied once the runner is in place (the baseline) and copied back after every
 *   run, so every Python object, module, cache, hook and C static starts each program as it was.
 * - What lives outside the heap is checked: calls from the interpreter into JavaScript are counted
 *   (a run that makes any beyond the host's own fixed handful reached JavaScript, where the heap
 *   restore cannot follow: timers, JS objects, the interrupt buffer), /tmp and the working
 *   directory are emptied, file descriptors the run left open are closed, the working directory is
 *   set back, and the rest of the file system must match the baseline. Any doubt answers
 *   `replace`, and the host recycles the interpreter instead of restoring it.
 * - Memory: the heap's maximum is written into the wasm binary before it is compiled, so no grow
 *   from anywhere passes it, and the bytes a run may put into files (which live in JS arrays) are
 *   capped.
 * - Output: stdout and stderr are counted into one byte budget by Pyodide's raw write handlers;
 *   the write that passes it sets the interrupt, so a flood stops.
 */

/**
 * Imports the interpreter calls in ordinary runs (system calls on the virtual file system, clocks,
 * maths, heap growth, indirect calls, time.sleep's question whether it may suspend): not counted. Every other import is a crossing into
 * JavaScript that a program has no ordinary reason to make (sockets and umask included).
 */
const UNCOUNTED_IMPORTS =
  /^(?:__syscall_(?!umask_js$|socket$|connect$|bind$|listen$|accept4$|sendto$|recvfrom$|sendmsg$|recvmsg$|getpeername$|getsockname$|getsockopt$)|fd_|clock_|environ_|random_get$|proc_exit$|exit$|invoke_|can_run_sync_js$|_PyEM_TrampolineCall_JS$|_Py_CheckEmscriptenSignals_Helper$|emscripten_resize_heap$|emscripten_get_heap_max$|emscripten_date_now$|emscripten_get_now|_emscripten_get_now_is_monotonic$|emscripten_math_|_(?:gmtime|localtime|mktime|timegm|tzset|mmap|munmap|msync)_js$|__call_sighandler$|_emscripten_throw_longjmp$|__assert_fail$|_abort_js$|_Unwind_|emscripten_stack_|__asctime_r$|strptime)/;

const WASM_PAGE_BYTES = 65536;
const SIGINT = 2;
const ENOSPC = 51; // emscripten's errno numbering
const WORKDIR = '/home/pyodide';
const SCRATCH_DIRS = ['/tmp', WORKDIR];
/** Not part of the file-system check: devices and proc reflect live streams, checked on their own. */
const UNCHECKED_DIRS = new Set(['/dev', '/proc', ...SCRATCH_DIRS]);

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

/** stdout and stderr of one run in one byte budget; the write that passes it calls onFull. */
class OutputCapture {
  constructor(maxBytes, onFull) {
    this.room = Math.max(0, maxBytes);
    this.parts = { stdout: [], stderr: [] };
    this.truncated = false;
    this.onFull = onFull;
  }

  write(stream, buffer) {
    if (!this.truncated) {
      const kept = Math.min(buffer.length, this.room);
      if (kept > 0) this.parts[stream].push(buffer.slice(0, kept));
      this.room -= kept;
      if (kept < buffer.length) {
        this.truncated = true;
        this.onFull();
      }
    }
    return buffer.length; // all of it "written": Python must not retry what was dropped
  }

  text(stream) {
    const parts = this.parts[stream];
    const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      bytes.set(part, at);
      at += part.length;
    }
    const end = this.truncated ? completeUtf8Length(bytes) : bytes.length;
    return new TextDecoder().decode(bytes.subarray(0, end));
  }
}

/** Length without a trailing UTF-8 sequence that the byte cap cut short. */
export function completeUtf8Length(bytes) {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // continuation byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

function describeFailure(error) {
  const code = error?.code ? `${error.code}${error.permission ? ` (${error.permission})` : ''}: ` : '';
  const text = typeof error?.message === 'string' ? `${error.name ?? 'Error'}: ${error.message}` : String(error);
  return `${code}${text}`.slice(0, 2000);
}

function childPath(dir, name) {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

function entries(FS, dir) {
  return FS.readdir(dir).filter((name) => name !== '.' && name !== '..');
}

/** Every path outside the scratch dirs with its inode, mode, size and times; one string to compare. */
function fileSystemFingerprint(FS) {
  const lines = [];
  const walk = (dir) => {
    for (const name of entries(FS, dir)) {
      const path = childPath(dir, name);
      if (UNCHECKED_DIRS.has(path)) continue;
      const stat = FS.lstat(path);
      lines.push(`${path} ${stat.ino} ${stat.mode} ${stat.size} ${+stat.mtime} ${+stat.ctime}`);
      if (FS.isDir(stat.mode)) walk(path);
    }
  };
  walk('/');
  for (const dir of UNCHECKED_DIRS) {
    const stat = FS.lstat(dir);
    lines.push(`${dir} ${stat.ino} ${stat.mode}`);
  }
  return lines.join('\n');
}

function emptyDir(FS, dir) {
  for (const name of entries(FS, dir)) {
    const path = childPath(dir, name);
    const stat = FS.lstat(path);
    if (FS.isDir(stat.mode)) {
      FS.chmod(path, 0o700); // a program may have locked its own directory
      emptyDir(FS, path);
      FS.rmdir(path);
    } else {
      FS.unlink(path);
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
  static start(pyodide, hook, { runnerSource, interruptBuffer, fileBytesPerRun }) {
    if (!hook.used) throw new Error("Pyodide's wasm module was not instantiated through the isolation hook");
    return new IsolatedRunner(pyodide, hook.counts, runnerSource, interruptBuffer, fileBytesPerRun);
  }

  constructor(pyodide, counts, runnerSource, interruptBuffer, fileBytesPerRun) {
    this.module = pyodide._module; // private, but the only handle on the heap and MEMFS: pin the version
    this.FS = pyodide.FS;
    this.counts = counts;
    this.interruptBuffer = interruptBuffer;
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
    this.capFileStorage(fileBytesPerRun);
    this.newCapture = (maxOutputBytes) => new OutputCapture(maxOutputBytes, onFull);
    this.runner = pyodide.runPython(runnerSource, { globals: pyodide.toPy({}) });
    this.runner('pass'); // compiles the runner's paths, so the baseline has them
    this.baseline = {
      heap: this.module.HEAPU8.slice(),
      files: fileSystemFingerprint(this.FS),
      streams: this.FS.streams.map((stream) => stream && { stream, position: stream.position }),
      cwd: this.FS.cwd(),
      scratchModes: SCRATCH_DIRS.map((dir) => this.FS.lstat(dir).mode),
    };
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

  /** Files live in JS arrays outside the wasm heap: cap what one run may allocate for them. */
  capFileStorage(limitBytes) {
    const MEMFS = this.module.MEMFS;
    const { expandFileStorage, resizeFileStorage } = MEMFS;
    const ErrnoError = this.FS.ErrnoError;
    this.fileBytes = 0;
    // Charged by what the array grew to: MEMFS grows a file by an eighth at a time, not by the write.
    const charged = (grow) =>
      function (node, size) {
        const before = node.contents?.length ?? 0;
        if (size - before > limitBytes - this.fileBytes) throw new ErrnoError(ENOSPC);
        const result = grow.call(MEMFS, node, size);
        this.fileBytes += Math.max(0, (node.contents?.length ?? 0) - before);
        if (this.fileBytes > limitBytes) throw new ErrnoError(ENOSPC);
        return result;
      }.bind(this);
    MEMFS.expandFileStorage = charged(expandFileStorage);
    MEMFS.resizeFileStorage = charged(resizeFileStorage);
  }

  /**
   * Runs one program. The reply's text fields come from here, not from Python: stdout and stderr
   * from the capture, the runner's JSON as a string or nothing. `replace` means do not reuse.
   */
  run(code, maxOutputBytes) {
    const capture = this.newCapture(maxOutputBytes);
    this.capture = capture;
    this.fileBytes = 0;
    this.counts.clear();
    let output;
    let failure;
    try {
      output = this.runner(code);
    } catch (error) {
      failure = describeFailure(error);
    }
    this.capture = null;
    if (this.interruptBuffer) Atomics.store(this.interruptBuffer, 0, 0); // an output-cap interrupt Python never saw
    const doubt = failure !== undefined ? 'the interpreter failed' : this.doubt(output);
    this.doomed = doubt !== null;
    return {
      ...(typeof output === 'string' && { output }),
      ...(failure !== undefined && { failure }),
      stdout: capture.text('stdout'),
      stderr: capture.text('stderr'),
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
    const heap = this.module.HEAPU8;
    heap.set(this.baseline.heap);
    if (heap.length > this.baseline.heap.length) heap.fill(0, this.baseline.heap.length);
  }

  /** Why this interpreter cannot be brought back to the baseline, or null. Tidies what it can. */
  doubt(output) {
    if (typeof output !== 'string') return "the runner's answer was not text";
    if (this.footprintNow() !== this.footprint) return 'the run called into JavaScript';
    try {
      return this.tidyFiles();
    } catch (error) {
      return `the file system could not be tidied: ${describeFailure(error)}`;
    }
  }

  tidyFiles() {
    const { FS, baseline } = this;
    const streams = FS.streams;
    for (let fd = 0; fd < Math.max(streams.length, baseline.streams.length); fd++) {
      const kept = baseline.streams[fd];
      if (kept) {
        if (streams[fd] !== kept.stream) return 'the run replaced a file descriptor of the baseline';
        kept.stream.position = kept.position;
      } else if (streams[fd]) {
        FS.close(streams[fd]);
      }
    }
    SCRATCH_DIRS.forEach((dir, i) => {
      FS.chmod(dir, 0o700);
      emptyDir(FS, dir);
      FS.chmod(dir, baseline.scratchModes[i]);
    });
    FS.chdir(baseline.cwd);
    if (fileSystemFingerprint(FS) !== baseline.files) return 'the run changed files outside /tmp and the working directory';
    return null;
  }
}
