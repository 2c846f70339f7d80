/**
 * The Python half of every sandbox interpreter, shared by the browser worker and the Node child.
 *
 * How a host uses it (interpreterIsolation.mjs does this for both hosts):
 *   const run = pyodide.runPython(PYTHON_RUNNER_SOURCE, { globals: pyodide.toPy({}) });
 *   const output = run(code); // JSON text of a RunnerOutput
 * Evaluating the source sets the interpreter's baseline: the import guard first in sys.meta_path,
 * the audit hook, blocked modules hidden from sys.modules, `random` seeded, stdout and stderr
 * unbuffered on file descriptors 1 and 2, the working directory. The host then snapshots the wasm
 * heap and restores it after every run, so nothing a program changes in Python outlives it: the
 * runner has no per-run reset, and nothing in it needs to survive tampering. The host owns what a
 * result says: stdout and stderr are counted and capped in its raw write handlers, it keeps the
 * clock, and it validates this JSON (runResult.ts).
 *
 * Per run: a fresh `__main__`; stdin raises InputBlocked; the import guard raises ImportBlocked;
 * the audit hook refuses process spawning, new audit hooks and writes outside /tmp and the working
 * directory; os._exit raises SystemExit instead of ending the interpreter; the traceback keeps only
 * `<exec>` frames, with bounded lines, and the error's type is one of RUNNER_ERROR_TYPES. This is a
 * guard against accidents and casual escapes; the boundary is the process around the interpreter,
 * and the isolation between runs is the heap restore and the file-system freeze
 * (docs/sandbox-security.md).
 */

/** What `run(code)` returns, as JSON: the error only; the host owns the output. */
export interface RunnerOutput {
  error: { type: string; message: string } | null;
}

/** Bounds the runner keeps an error within; the host refuses anything longer (runResult.ts). */
export const RUNNER_MAX_ERROR_TYPE_CHARS = 100;
export const RUNNER_MAX_ERROR_MESSAGE_CHARS = 4000;

/** Python 3.14's built-in exception classes, without the aliases (IOError is OSError). */
const BUILTIN_ERROR_TYPES = [
  'ArithmeticError', 'AssertionError', 'AttributeError', 'BaseException', 'BaseExceptionGroup', 'BlockingIOError',
  'BrokenPipeError', 'BufferError', 'BytesWarning', 'ChildProcessError', 'ConnectionAbortedError', 'ConnectionError',
  'ConnectionRefusedError', 'ConnectionResetError', 'DeprecationWarning', 'EOFError', 'EncodingWarning', 'Exception',
  'ExceptionGroup', 'FileExistsError', 'FileNotFoundError', 'FloatingPointError', 'FutureWarning', 'GeneratorExit',
  'ImportError', 'ImportWarning', 'IndentationError', 'IndexError', 'InterruptedError', 'IsADirectoryError', 'KeyError',
  'KeyboardInterrupt', 'LookupError', 'MemoryError', 'ModuleNotFoundError', 'NameError', 'NotADirectoryError',
  'NotImplementedError', 'OSError', 'OverflowError', 'PendingDeprecationWarning', 'PermissionError',
  'ProcessLookupError', 'PythonFinalizationError', 'RecursionError', 'ReferenceError', 'ResourceWarning',
  'RuntimeError', 'RuntimeWarning', 'StopAsyncIteration', 'StopIteration', 'SyntaxError', 'SyntaxWarning',
  'SystemError', 'SystemExit', 'TabError', 'TimeoutError', 'TypeError', 'UnboundLocalError', 'UnicodeDecodeError',
  'UnicodeEncodeError', 'UnicodeError', 'UnicodeTranslateError', 'UnicodeWarning', 'UserWarning', 'ValueError',
  'Warning', 'ZeroDivisionError',
];
/**
 * The only error types the runner reports (the host refuses any other, runResult.ts): the built-in
 * classes, the runner's own two and Pyodide's error from JavaScript. An exception of any other class is reported as the first of
 * these in its class's MRO, so a program's class cannot take a host error type's name (Timeout,
 * InterpreterDied, ...) or put newlines and terminal codes into the type.
 */
export const RUNNER_ERROR_TYPES: ReadonlySet<string> = new Set([...BUILTIN_ERROR_TYPES, 'ImportBlocked', 'InputBlocked', 'JsException']);

/** The state `random` starts every run from, so a program draws the same numbers on every run. */
export const RUNNER_RANDOM_SEED = 0;

export const PYTHON_RUNNER_SOURCE = String.raw`
import builtins, io, json, linecache, os, random, sys, traceback, types

# Roots whose import is refused. threading stays importable: Pyodide cannot start a thread anyway.
BLOCKED_IMPORTS = frozenset({
    'js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'micropip',
    'ctypes', '_ctypes', 'socket', '_socket', 'ssl', '_ssl', 'select', 'selectors',
    'subprocess', '_posixsubprocess', 'multiprocessing', '_multiprocessing',
    'asyncio', '_asyncio', 'urllib.request', 'http', 'xmlrpc', 'ftplib', 'smtplib',
    'poplib', 'imaplib', 'webbrowser',
})
WORKDIR = '/home/pyodide'
SCRATCH_DIRS = ('/tmp', WORKDIR)
SPAWN_EVENTS = frozenset({
    'os.system', 'os.exec', 'os.spawn', 'os.posix_spawn', 'os.fork', 'os.forkpty',
    'os.kill', 'os.killpg', 'subprocess.Popen', 'pty.spawn',
})
# Audit events that change the file system, with the positions of their path arguments.
PATH_EVENTS = {
    'os.mkdir': (0,), 'os.rmdir': (0,), 'os.remove': (0,), 'os.rename': (0, 1), 'os.link': (0, 1),
    'os.symlink': (0, 1), 'os.truncate': (0,), 'os.chmod': (0,), 'os.chown': (0,), 'os.utime': (0,),
}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
MAX_FRAMES = 5
MAX_LINE_CHARS = 200
MAX_MESSAGE_CHARS = ${RUNNER_MAX_ERROR_MESSAGE_CHARS}


class ImportBlocked(ImportError):
    """An import the sandbox refuses."""


class InputBlocked(EOFError):
    """Any read of stdin: model-written code gets no interactive input."""


def is_blocked(name):
    root = name.partition('.')[0]
    return root in BLOCKED_IMPORTS or name in BLOCKED_IMPORTS or name.startswith('urllib.request.')


class ImportGuard:
    """First entry of sys.meta_path: consulted for every module not already in sys.modules."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if is_blocked(name):
            raise ImportBlocked(f"import of '{name}' is blocked in the sandbox")
        return None


class BlockedStdin(io.TextIOBase):
    def readable(self):
        return True

    def read(self, size=-1):
        raise InputBlocked('stdin is not available in the sandbox')

    def readline(self, size=-1):
        raise InputBlocked('stdin is not available in the sandbox')


def inside_scratch(path):
    if isinstance(path, int):
        return True  # an already open descriptor was checked when it was opened
    full = realpath(fsdecode(path))
    return full == '/dev/null' or any(full == d or full.startswith(d + '/') for d in SCRATCH_DIRS)


RUNNER_GLOBALS = globals()
active_run = False
realpath, fsdecode = os.path.realpath, os.fsdecode  # bound once: user code may patch os.path


def audit(event, args):
    """Installed once and never removable; only acts while user code runs."""
    if not active_run:
        return
    if event == 'sys.addaudithook':
        raise RuntimeError('audit hooks are fixed in the sandbox')  # RuntimeError: the add is dropped
    if event in SPAWN_EVENTS:
        raise PermissionError(f'{event} is not available in the sandbox')
    if event == 'open':
        path, _mode, flags = args
        if isinstance(flags, int) and flags & WRITE_FLAGS and path is not None and not inside_scratch(path):
            raise PermissionError(f'writing is only allowed in /tmp and {WORKDIR}')
    elif event in PATH_EVENTS:
        for i in PATH_EVENTS[event]:
            if i < len(args) and args[i] is not None and not inside_scratch(args[i]):
                raise PermissionError(f'{event} is only allowed in /tmp and {WORKDIR}')


def bounded(line):
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + '...'


def short_traceback(error):
    """The user's frames only (code from '<exec>', not this runner), repeats folded, then 'Type: message'."""
    if isinstance(error, SyntaxError):
        return ''.join(traceback.format_exception_only(error))
    frames = []  # [lineno, function, repeats]
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_filename == '<exec>' and frame.f_globals is not RUNNER_GLOBALS:
            if frames and frames[-1][:2] == [tb.tb_lineno, frame.f_code.co_name]:
                frames[-1][2] += 1
            else:
                frames.append([tb.tb_lineno, frame.f_code.co_name, 0])
        tb = tb.tb_next
    lines = []
    if len(frames) > MAX_FRAMES:
        lines.append(f'  ... {len(frames) - MAX_FRAMES} earlier frames\n')
        frames = frames[-MAX_FRAMES:]
    for lineno, function, repeats in frames:
        lines.append(f'  File "<exec>", line {lineno}, in {bounded(function)}\n')
        source = linecache.getline('<exec>', lineno).strip()
        if source:
            lines.append(f'    {bounded(source)}\n')
        if repeats:
            lines.append(f'  [Previous line repeated {repeats} more times]\n')
    last = ''.join(traceback.format_exception_only(error))
    header = 'Traceback (most recent call last):\n' if lines else ''
    return header + ''.join(lines) + last


def reported_type(error):
    try:  # a metaclass may make __mro__, hashing or comparing raise
        for cls in type(error).__mro__:
            if cls in REPORTED_TYPES:
                return REPORTED_TYPES[cls]
    except BaseException:
        pass
    return 'BaseException'


def describe(error):
    kind = reported_type(error)
    try:
        message = short_traceback(error).rstrip('\n')
    except BaseException:
        message = kind
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS - 3] + '...'
    return {'type': kind, 'message': message}


def exit_now(code):
    """os._exit would end the interpreter itself, and the next program would wait for a new one."""
    raise SystemExit(code)


def is_clean_exit(error):
    return isinstance(error, SystemExit) and error.code in (None, 0)


def run(code):
    global active_run
    main = types.ModuleType('__main__')
    main.__builtins__ = builtins
    sys.modules['__main__'] = main
    linecache.cache['<exec>'] = (len(code), None, code.splitlines(True), '<exec>')
    error = None
    active_run = True
    try:
        exec(compile(code, '<exec>', 'exec', dont_inherit=True), main.__dict__)
    except BaseException as raised:
        error = None if is_clean_exit(raised) else describe(raised)
    active_run = False
    return dumps({'error': error})


def unbuffered(fd):
    # Every write reaches the host's raw handler at once: nothing waits in a Python buffer for a
    # flush at the end of the run, which the program could break.
    raw = io.FileIO(fd, 'w', closefd=False)
    return io.TextIOWrapper(raw, encoding='utf-8', errors='backslashreplace', write_through=True)


dumps = json.dumps  # ensure_ascii: the answer is always ASCII, so crossing to JavaScript costs the same
os.makedirs(WORKDIR, exist_ok=True)
os.chdir(WORKDIR)
sys.stdout = sys.__stdout__ = unbuffered(1)
sys.stderr = sys.__stderr__ = unbuffered(2)
sys.stdin = sys.__stdin__ = BlockedStdin()
random.seed(${RUNNER_RANDOM_SEED})
# Classes by identity, names as written here: a program may rename a class, not these strings.
REPORTED_TYPES = {getattr(builtins, name): name for name in ${JSON.stringify(BUILTIN_ERROR_TYPES)} if hasattr(builtins, name)}
from pyodide.ffi import JsException  # before the guard: pyodide is a blocked import
REPORTED_TYPES.update({ImportBlocked: 'ImportBlocked', InputBlocked: 'InputBlocked', JsException: 'JsException'})
del JsException
sys.meta_path.insert(0, ImportGuard)
for name in [name for name in sys.modules if is_blocked(name)]:
    del sys.modules[name]  # importing them again goes through the guard
os._exit = sys.modules['posix']._exit = exit_now
sys.addaudithook(audit)
run
`;
