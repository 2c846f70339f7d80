/**
 * The isolation corpus (issue 12), run by test/sandboxIsolation.test.ts in Node and by
 * e2e/sandbox.spec.ts in Chromium: attacks on what one program could leave behind for the next,
 * one or more per category the red team found, and the probes that look for it. For each attack,
 * the probes run after it on the same pool must give exactly what they give in a fresh pool, and
 * every result field must have its type and bound.
 */
import type { RunResult } from '../src/core/sandbox/protocol';

export const ISOLATION_MAX_OUTPUT_BYTES = 4096;
/** Attacks past the guard import Pyodide's own modules, which is slow on a busy machine. */
export const ISOLATION_ATTACK_TIMEOUT_MS = 10_000;
export const ISOLATION_PROBE_TIMEOUT_MS = 5_000;

export interface IsolationProbe {
  name: string;
  code: string;
  timeoutMs?: number;
}

/** Benign programs that look at everything an attack below tries to change. */
export const ISOLATION_PROBES: IsolationProbe[] = [
  { name: 'arithmetic', code: 'print(6*7)' },
  {
    name: 'modules and builtins',
    code: `import json, math, os.path, random, re
print(json.dumps({"a": [1, 2]}), json.loads("[3]"), math.pi, math.sqrt(16), os.path.join("a", "b"))
print(random.random(), random.randint(1, 10**9), int("7") + 1, len([1, 2]), str(3))
print(re.sub(r"\\d+", "#", "a1b22"), re.compile("x").pattern)
print(sorted(set("abcdefgh")), hash("tirlab"))`,
  },
  {
    name: 'interpreter settings',
    code: `import gc, sys
print(sys.get_asyncgen_hooks(), sys.getrecursionlimit(), sys.gettrace(), sys.getprofile())
print(gc.isenabled(), gc.get_threshold(), len(sys.meta_path), len(sys.path), sys.path[0])
import builtins
print(hasattr(builtins, "zombie"), type(sys.stdout).__name__, type(sys.stdin).__name__)`,
  },
  {
    name: 'files, modes and umask',
    code: `import importlib.util, os
print(os.getcwd(), sorted(os.listdir("/tmp")), sorted(os.listdir(".")), sorted(os.listdir("/")))
print(oct(os.stat("/tmp").st_mode), oct(os.stat(".").st_mode), sorted(os.listdir("/lib")))
print(sorted(os.listdir("/lib/python3.14/site-packages")), importlib.util.find_spec("tirlab_planted"))
open("/tmp/probe", "w").close()
print(oct(os.stat("/tmp/probe").st_mode), os.open("/tmp/probe", os.O_RDONLY))`,
  },
  { name: 'a blocked import', code: 'import js' },
  { name: 'a write outside the scratch directories', code: "open('/lib/python3.14/site-packages/tirlab_planted.py', 'w')" },
  { name: 'an error', code: 'def f():\n    return 1 / 0\nf()' },
  { name: 'output at the cap', code: "import sys\nprint('\\u00e9' * 3)\nsys.stderr.write('warn\\n')\nprint('x' * 5000)" },
  { name: 'a timeout', code: 'while True:\n    pass', timeoutMs: 300 },
  {
    name: 'the file system below Python',
    code: `import fcntl, os
open('/tmp/ino', 'w').close()
print(os.stat('/tmp/ino').st_ino, sorted(os.listdir('/dev')), sorted(os.listdir('/dev/shm')), sorted(os.listdir('/proc')))
t, w, z = os.stat('/tmp'), os.stat('.'), os.stat('/lib/python314.zip')
print(oct(z.st_mode), oct(os.stat('/lib').st_mode), oct(os.stat('/lib/python3.14').st_mode), oct(os.stat('/').st_mode))
print(t.st_atime == t.st_mtime == t.st_ctime, w.st_atime == w.st_mtime == w.st_ctime, z.st_size, z.st_atime <= z.st_mtime + 1)
print(os.path.isdir('/dev/null'), os.path.exists('/tmp/__proto__'), fcntl.fcntl(1, fcntl.F_GETFL))
import fractions, statistics
print(fractions.Fraction(1, 3) + 1, statistics.median([3, 1, 2]))`,
  },
];

export interface IsolationAttack {
  category: string;
  name: string;
  code: string;
}

/**
 * Why an attack's result shows it never ran: Python refused to compile it (a NUL written as `\0` in
 * a template literal reaches Python as a NUL byte, and two attacks were SyntaxErrors for that).
 * An attack that never ran tests nothing.
 */
export function attackNotRun(result: RunResult): string | null {
  return result.error?.type === 'SyntaxError' ? `the attack did not compile: ${result.error.message}` : null;
}

/** The runner's own globals, one frame up from a program's top level. */
const RUNNER_GLOBALS = 'import sys\ng = sys._getframe(1).f_globals\n';
/** Removes the import guard, as any escape does first. */
const PAST_THE_GUARD = 'import sys\nsys.meta_path.pop(0)\n';

export const ISOLATION_ATTACKS: IsolationAttack[] = [
  {
    category: "the runner's own objects",
    name: 'its JSON encoder',
    code: `import json
json.dumps = lambda *a, **k: '{"error": null}'
json.JSONEncoder.encode = lambda self, o: '{"error": null}'
json.encoder.py_encode_basestring_ascii = lambda s: '"forged"'`,
  },
  {
    category: "the runner's own objects",
    name: 'its run, describe and dumps through a frame walk',
    code: `${RUNNER_GLOBALS}g['dumps'] = lambda o: '{"error": null}'
g['describe'] = lambda e: {'type': 'Forged', 'message': 'forged'}
g['run'].__code__ = (lambda code: '{"error": null}').__code__`,
  },
  {
    category: "the runner's own objects",
    name: 'its run function found through gc',
    code: `import gc
for f in gc.get_objects():
    if getattr(f, '__name__', '') == 'run' and getattr(f, '__code__', None) is not None and f.__code__.co_varnames[:1] == ('code',):
        f.__code__ = (lambda code: '{"error": null}').__code__`,
  },
  {
    category: "the runner's own objects",
    name: 'its output streams',
    code: `import builtins, io, sys
sys.stdout = sys.__stdout__ = io.StringIO()
sys.stderr = sys.__stderr__ = io.StringIO()
builtins.print = lambda *a, **k: None`,
  },
  {
    category: "the guard's state",
    name: 'the guard and audit globals emptied',
    code: `${RUNNER_GLOBALS}g['BLOCKED_IMPORTS'] = frozenset()
g['SPAWN_EVENTS'] = frozenset()
g['active_run'] = False
g['inside_scratch'] = lambda path: True
g['is_blocked'].__code__ = (lambda name: False).__code__
g['ImportGuard'].find_spec = staticmethod(lambda *a, **k: None)`,
  },
  {
    category: 'state the reset missed',
    name: 'module attributes and function code',
    code: `import json, math, os.path
math.pi = 3
math.sqrt = lambda x: 0
json.loads.__code__ = (lambda s, **k: 'forged').__code__
os.path.join = lambda *a: 'forged'
import builtins
builtins.int = str
builtins.len = lambda x: 0`,
  },
  {
    category: 'state the reset missed',
    name: 'caches that keep their length (re)',
    code: `import re
re.sub(r"\\d+", "#", "a1b22")
re.compile("x")
for cache in (getattr(re, '_cache', {}), getattr(re, '_cache2', {})):
    for key in list(cache):
        cache[key] = re.compile('forged')`,
  },
  { category: 'state the reset missed', name: 'the random state', code: 'import random\nrandom.seed(12345)\nrandom.random()' },
  {
    category: 'state the reset missed',
    name: 'directory modes and the umask',
    code: "import os\nos.chmod('/tmp', 0o500)\nos.chmod('.', 0o500)\nos.umask(0o777)",
  },
  {
    category: 'state the reset missed',
    name: 'a module planted on the import path outside /tmp',
    code: `${RUNNER_GLOBALS}g['active_run'] = False
open('/lib/python3.14/site-packages/tirlab_planted.py', 'w').write('x = 1')
import os
os.mkdir('/lib/tirlab')`,
  },
  {
    category: 'state the reset missed',
    name: 'a module planted in /tmp, with /tmp on the path',
    code: "import sys\nsys.path.insert(0, '/tmp')\nopen('/tmp/tirlab_planted.py', 'w').write('x = 1')\nf = open('/tmp/kept', 'w')",
  },
  {
    category: 'state the reset missed',
    name: 'interpreter hooks and settings',
    code: `import gc, sys
sys.set_asyncgen_hooks(firstiter=lambda g: None, finalizer=lambda g: None)
sys.setrecursionlimit(60)
sys.settrace(lambda *a: None)
sys.setprofile(lambda *a: None)
gc.disable()
gc.set_threshold(1)`,
  },
  {
    category: 'state the reset missed',
    name: 'a finalizer that resurrects',
    code: `import builtins, math
class Zombie:
    def __del__(self):
        builtins.zombie = self
        math.pi = 4
z = Zombie()
z.self = z
del z`,
  },
  {
    category: 'state the reset missed',
    name: 'a JS timer that fires after the run',
    code: `${PAST_THE_GUARD}import asyncio, math
def later():
    math.pi = 5
asyncio.get_event_loop().call_later(0.001, later)`,
  },
  {
    category: 'state the reset missed',
    name: 'a swapped interrupt buffer',
    code: `${PAST_THE_GUARD}import pyodide_js
pyodide_js.setInterruptBuffer(pyodide_js._module.HEAP8.constructor.new(1))`,
  },
  {
    category: 'result fields',
    name: 'an answer that is not text',
    code: `${RUNNER_GLOBALS}g['dumps'] = lambda o: 5`,
  },
  {
    category: 'result fields',
    name: 'an error type of ten million characters in the answer',
    code: `${RUNNER_GLOBALS}g['dumps'] = lambda o: '{"error": {"type": "' + 'E' * 10**7 + '", "message": "m"}}'`,
  },
  {
    category: 'result fields',
    name: 'an exception class with a name of a million characters',
    code: "class E(Exception):\n    pass\nE.__name__ = 'E' * 10**6\nraise E('x' * 10**6)",
  },
  {
    category: 'result fields',
    name: 'an exception class whose metaclass makes __mro__ and hashing raise, named like a host error',
    code: `class Meta(type):
    __mro__ = property(lambda cls: 1 / 0)
    def __hash__(cls):
        raise RuntimeError('no hash')
class Timeout(Exception, metaclass=Meta):
    pass
Timeout.__name__ = 'InterpreterDied\\n\\x1b[2J'
raise Timeout('forged')`,
  },
  {
    category: 'result fields',
    name: 'fields the host owns, forged in the answer',
    code: `${RUNNER_GLOBALS}g['dumps'] = lambda o: '{"error": null, "stdout": 5, "truncated": "no", "ok": 1}'`,
  },
  {
    category: 'result fields',
    name: 'output past the cap, written around the text layer',
    code: "import os, sys\nos.write(1, b'x' * 10**6)\nsys.stdout.buffer.write(b'y' * 10**6)",
  },
  {
    category: 'result fields',
    name: 'invalid JSON from the runner',
    code: `${RUNNER_GLOBALS}g['dumps'] = lambda o: '{"error": '`,
  },
  {
    category: 'outside the heap',
    name: 'the stdlib zip overwritten in place at its own size, its times put back',
    code: `${RUNNER_GLOBALS}g['active_run'] = False
import os
path = '/lib/python314.zip'
s = os.stat(path)
fd = os.open(path, os.O_RDWR)
os.pwrite(fd, b'\\0' * 4096, s.st_size - 8192)
os.utime(path, ns=(s.st_atime_ns, s.st_mtime_ns))`,
  },
  {
    category: 'outside the heap',
    name: 'the stdlib zip written through a shared mapping',
    code: `${RUNNER_GLOBALS}g['active_run'] = False
import mmap
f = open('/lib/python314.zip', 'r+b')
m = mmap.mmap(f.fileno(), 0)
m[-4096:] = b'\\0' * 4096
m.flush()`,
  },
  {
    category: 'outside the heap',
    name: 'files named __proto__, which no directory listing shows',
    code: "import os\nopen('/tmp/__proto__', 'w').write('kept')\nos.mkdir('/tmp/d')\nopen('/tmp/d/__proto__', 'w').write('kept')\nos.mkdir('__proto__')",
  },
  {
    category: 'outside the heap',
    name: 'the inode counter run far ahead through pipes',
    code: 'import os\nfor i in range(3000):\n    r, w = os.pipe()\n    os.close(r)\n    os.close(w)',
  },
  {
    category: 'outside the heap',
    name: "times: the scratch directories', and the stdlib's through a descriptor and with nanoseconds",
    code: `${RUNNER_GLOBALS}g['active_run'] = False
import os
os.utime('/tmp', (5, 5))
os.utime('.', ns=(6, 6))
os.utime(os.open('/lib/python314.zip', os.O_RDONLY), ns=(10**19, 10**19))`,
  },
  {
    category: 'outside the heap',
    name: '/dev and /proc: /dev/null renamed, a directory in /dev/shm, a symlink in /proc/self',
    code: `${RUNNER_GLOBALS}g['active_run'] = False
import os
for action in (lambda: os.rename('/dev/null', '/tmp/null'), lambda: os.mkdir('/dev/shm/kept'), lambda: os.symlink('/tmp', '/proc/self/kept')):
    try:
        action()
    except OSError:
        pass`,
  },
  {
    category: 'outside the heap',
    name: 'the stdlib zip through a name in /tmp: a symlink written through, a hard link truncated, the zip renamed away',
    code: `${RUNNER_GLOBALS}g['active_run'] = False
import os
for action in (
    lambda: os.symlink('/lib/python314.zip', '/tmp/zip'),
    lambda: open('/tmp/zip', 'r+b').write(b'\\0' * 4096),
    lambda: os.link('/lib/python314.zip', '/tmp/linked.zip'),
    lambda: os.truncate('/tmp/linked.zip', 0),
    lambda: os.rename('/lib/python314.zip', '/tmp/moved.zip'),
):
    try:
        action()
    except OSError:
        pass`,
  },
  {
    category: 'outside the heap',
    name: "the library's modes set to nothing",
    code: `${RUNNER_GLOBALS}g['active_run'] = False
import os
for path in ('/lib/python314.zip', '/lib/python3.14', '/lib', '/'):
    try:
        os.chmod(path, 0)
    except OSError:
        pass`,
  },
  {
    category: 'outside the heap',
    name: 'FIFOs left in the scratch directories',
    code: "import os\nos.mkfifo('/tmp/fifo')\nos.mkfifo('fifo')",
  },
  {
    category: 'outside the heap',
    name: "stdout's descriptor flags",
    code: 'import fcntl, os\nfcntl.fcntl(1, fcntl.F_SETFL, os.O_APPEND | os.O_NONBLOCK)',
  },
  {
    category: 'memory',
    name: "a terminal's line buffer, past the guard",
    code: `${RUNNER_GLOBALS}g['active_run'] = False
try:
    open('/dev/tty', 'w').write('x' * 10**7)
except OSError:
    pass`,
  },
  {
    category: 'memory',
    name: 'the wasm memory grown directly, past the cap',
    code: `${PAST_THE_GUARD}import pyodide_js
pyodide_js._module.memory.grow(16384)`,
  },
];

/** The fields a probe's result is compared on. A timeout's message says how it ended: type only. */
export function observed(result: RunResult) {
  return {
    ok: result.ok,
    stdout: result.stdout,
    stderr: result.stderr,
    timedOut: result.timedOut,
    truncated: result.truncated,
    errorType: result.error?.type ?? null,
    errorMessage: result.error?.type === 'Timeout' ? null : (result.error?.message ?? null),
  };
}

/** Every field with its type and bound; empty when the result is well formed. */
export function resultFieldProblems(result: RunResult, maxOutputBytes: number): string[] {
  const problems: string[] = [];
  if (typeof result.ok !== 'boolean') problems.push('ok is not a boolean');
  if (typeof result.stdout !== 'string' || typeof result.stderr !== 'string') problems.push('stdout or stderr is not text');
  else if (new TextEncoder().encode(result.stdout + result.stderr).length > maxOutputBytes) problems.push('output past the cap');
  if (typeof result.timedOut !== 'boolean' || typeof result.truncated !== 'boolean') problems.push('a flag is not a boolean');
  if (typeof result.durationMs !== 'number' || !Number.isFinite(result.durationMs)) problems.push('durationMs is not a number');
  if (result.ok !== (result.error === undefined)) problems.push('ok disagrees with error');
  if (result.error !== undefined) {
    const { type, message } = result.error;
    if (typeof type !== 'string' || type.length === 0 || type.length > 100) problems.push('error type is not a short text');
    if (typeof message !== 'string' || message.length > 4000) problems.push('error message is not a bounded text');
  }
  return problems;
}
