/**
 * The Python half of every sandbox interpreter, shared by the browser worker and the Node child.
 *
 * How a host uses it (Pyodide shown; the source itself needs only a CPython 3.12+ under Emscripten):
 *   const run = pyodide.runPython(PYTHON_RUNNER_SOURCE, { globals: pyodide.toPy({}) });
 *   const output: RunnerOutput = JSON.parse(run(code, maxOutputBytes));
 * Evaluate it once per interpreter, after which the interpreter's state is the baseline that every
 * run starts from. The host still owns: the timeout (interrupt, then kill), fd-level output (which
 * it should discard: the runner captures sys.stdout/sys.stderr), stdin at the fd level (raise), and
 * turning a KeyboardInterrupt it caused into a Timeout (see runResult.ts).
 *
 * What the runner does, per run: a fresh `__main__`; output captured into one byte budget, with
 * OutputLimit raised inside Python at the write that passes it (so a flood loop stops early);
 * stdin raises InputBlocked; an import guard raising ImportBlocked; an audit hook refusing process
 * spawning, new audit hooks and writes outside /tmp and the working directory; afterwards every
 * module present at the baseline gets its namespace (and its top-level lists and dicts) back, new
 * modules are dropped, cwd, os.environ, the recursion limit, SIGINT, tracing and sys.monitoring are
 * reset, and /tmp and the working directory are emptied. Tracebacks keep only `<exec>` frames. A
 * run that removed the guard or imported a blocked module anyway is flagged (guardBypassed).
 * All of this is a guard against accidents and casual escapes; the boundary is the process around
 * the interpreter (docs/sandbox-security.md).
 */

/** What `run(code, maxOutputBytes)` returns, as JSON. */
export interface RunnerOutput {
  ok: boolean;
  stdout: string;
  stderr: string;
  truncated: boolean;
  error: { type: string; message: string } | null;
  /**
   * The run removed the import guard or imported a blocked module anyway: it may have reached
   * Pyodide's JavaScript side, so the host should not reuse this interpreter.
   */
  guardBypassed: boolean;
}

export const PYTHON_RUNNER_SOURCE = String.raw`
import builtins, gc, io, json, linecache, os, signal, sys, traceback, types

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
MAX_MESSAGE_CHARS = 2000


class ImportBlocked(ImportError):
    """An import the sandbox refuses."""


class InputBlocked(EOFError):
    """Any read of stdin: model-written code gets no interactive input."""


class OutputLimit(BaseException):
    """The write that passes the byte cap. A BaseException, so 'except Exception' does not swallow it."""


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


class Capture:
    """stdout and stderr of one run, sharing one budget of UTF-8 bytes."""

    def __init__(self, max_bytes):
        self.room = max(0, max_bytes)
        self.max_bytes = max_bytes
        self.parts = {'stdout': [], 'stderr': []}
        self.truncated = False

    def write(self, stream, text):
        if not isinstance(text, str):
            raise TypeError(f'write() argument must be str, not {type(text).__name__}')
        text = str.__str__(text)  # an exact str: a subclass could override len() or encode()
        # len() is a lower bound on the UTF-8 size, so a huge write is cut without encoding all of it.
        if len(text) <= self.room:
            size = len(text) if text.isascii() else len(text.encode('utf-8', 'surrogatepass'))
            if size <= self.room:
                self.parts[stream].append(text)
                self.room -= size
                return
        if self.room > 0:
            head = text[:self.room].encode('utf-8', 'surrogatepass')[:self.room]
            self.parts[stream].append(head.decode('utf-8', 'ignore'))
            self.room = 0
        self.truncated = True
        raise OutputLimit(f'output passed {self.max_bytes} bytes')

    def text(self, stream):
        return ''.join(self.parts[stream])


class CapturedStream(io.TextIOBase):
    def __init__(self, capture, name):
        self._capture = capture
        self._name = name

    @property
    def encoding(self):
        return 'utf-8'

    def writable(self):
        return True

    def write(self, text):
        self._capture.write(self._name, text)
        return len(text)


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
active_run = None
realpath, fsdecode = os.path.realpath, os.fsdecode  # bound once: user code may patch os.path


def audit(event, args):
    """Installed once and never removable; only acts while user code runs."""
    if active_run is None:
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


def snapshot_modules():
    """Each baseline module's namespace, and each list or dict a namespace holds (sys.path, sys.modules...)."""
    namespaces, containers, seen = [], [], set()
    for name, module in list(sys.modules.items()):
        namespace = getattr(module, '__dict__', None)
        if is_blocked(name) or type(namespace) is not dict:
            continue  # Pyodide's own modules: user code cannot import them, and they keep live state
        namespaces.append((namespace, namespace.copy()))
        for value in namespace.values():
            if type(value) in (list, dict) and id(value) not in seen:
                seen.add(id(value))
                containers.append((value, value.copy(), name == 'sys'))
    return namespaces, containers


def restore_modules():
    builtins.__dict__.clear()  # first, so the checks below call the real len() and type()
    builtins.__dict__.update(baseline_builtins)
    for namespace, copy in baseline_namespaces:
        namespace.clear()
        namespace.update(copy)
    # Restoring every container costs as much as the rest of a run, so only sys's (imports, paths)
    # are always restored; another container is restored when its length changed.
    for container, content, always in baseline_containers:
        if always or len(container) != len(content):
            if type(container) is list:
                container[:] = content
            else:
                container.clear()
                container.update(content)


def empty_dir(path):
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            empty_dir(entry.path)
            os.rmdir(entry.path)
        else:
            os.remove(entry.path)


def reset_interpreter():
    restore_modules()
    if dict(os.environ) != baseline_environ:
        os.environ.clear()
        os.environ.update(baseline_environ)
    sys.setrecursionlimit(baseline_recursion_limit)
    sys.set_int_max_str_digits(baseline_int_digits)
    sys.settrace(None)
    sys.setprofile(None)
    gc.enable()
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    for tool in range(6):
        if sys.monitoring.get_tool(tool) is not None:
            sys.monitoring.clear_tool_id(tool)
            sys.monitoring.free_tool_id(tool)
    os.chdir(WORKDIR)
    for path in SCRATCH_DIRS:
        empty_dir(path)


def short_traceback(error):
    """The user's frames only (code from '<exec>', not this runner), repeats folded, then 'Type: message'."""
    if isinstance(error, SyntaxError):
        return ''.join(traceback.format_exception_only(error))[-MAX_MESSAGE_CHARS:]
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
        lines.append(f'  File "<exec>", line {lineno}, in {function}\n')
        source = linecache.getline('<exec>', lineno).strip()
        if source:
            lines.append(f'    {source}\n')
        if repeats:
            lines.append(f'  [Previous line repeated {repeats} more times]\n')
    last = ''.join(traceback.format_exception_only(error))
    if len(last) > MAX_MESSAGE_CHARS:
        last = last[:MAX_MESSAGE_CHARS] + '...\n'
    header = 'Traceback (most recent call last):\n' if lines else ''
    return header + ''.join(lines) + last


def describe(error):
    try:
        return {'type': type(error).__name__, 'message': short_traceback(error).rstrip('\n')}
    except BaseException:
        return {'type': type(error).__name__, 'message': type(error).__name__}


def guard_bypassed():
    try:
        return sys.meta_path[0] is not ImportGuard or any(name in sys.modules for name in baseline_blocked)
    except BaseException:
        return True


def is_clean_exit(error):
    return isinstance(error, SystemExit) and error.code in (None, 0)


def run(code, max_output_bytes):
    global active_run
    capture = Capture(max_output_bytes)
    main = types.ModuleType('__main__')
    main.__builtins__ = builtins
    for name in baseline_blocked:
        sys.modules.pop(name, None)  # so importing them goes through the guard; the reset puts them back
    sys.modules['__main__'] = main
    sys.meta_path.insert(0, ImportGuard)
    sys.stdout = sys.__stdout__ = CapturedStream(capture, 'stdout')
    sys.stderr = sys.__stderr__ = CapturedStream(capture, 'stderr')
    sys.stdin = sys.__stdin__ = BlockedStdin()
    linecache.cache['<exec>'] = (len(code), None, code.splitlines(True), '<exec>')
    error = None
    active_run = capture
    try:
        exec(compile(code, '<exec>', 'exec', dont_inherit=True), main.__dict__)
    except BaseException as raised:
        error = None if is_clean_exit(raised) else describe(raised)
        raised.__traceback__ = None
    finally:
        main.__dict__.clear()  # finalizers of the run's objects fire now, before the reset undoes them
        bypassed = guard_bypassed()
        active_run = None
        reset_interpreter()
    if capture.truncated:
        error = {'type': 'OutputLimit', 'message': f'OutputLimit: output passed {max_output_bytes} bytes'}
    return dumps({
        'ok': error is None,
        'stdout': capture.text('stdout'),
        'stderr': capture.text('stderr'),
        'truncated': capture.truncated,
        'error': error,
        'guardBypassed': bypassed,
    })


dumps = json.dumps
os.makedirs(WORKDIR, exist_ok=True)
os.chdir(WORKDIR)
sys.addaudithook(audit)
baseline_namespaces, baseline_containers = snapshot_modules()
baseline_builtins = builtins.__dict__.copy()
baseline_blocked = [name for name in sys.modules if is_blocked(name)]
baseline_environ = dict(os.environ)
baseline_recursion_limit = sys.getrecursionlimit()
baseline_int_digits = sys.get_int_max_str_digits()
run
`;
