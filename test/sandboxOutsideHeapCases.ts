/**
 * Issue 25's defects, as programs: what one program could leave outside the wasm heap for the next
 * (the stdlib, file-system counters and times, /dev and /proc), memory outside every cap, what a
 * program could make cost an interpreter, and result fields it could forge. Run in Node by
 * test/sandboxOutsideHeap.test.ts and in Chromium by e2e/sandbox.spec.ts; each fails on the tree
 * before the fix.
 */

/** Turns the runner's audit hook off, as a program that walks one frame up can. */
export const GUARD_OFF = "import sys\nsys._getframe(1).f_globals['active_run'] = False\n";

const ZIP = '/lib/python314.zip';

/** Truncates the end of the stdlib zip and grows it back to its size (truncate touches no times). */
export const DAMAGE_STDLIB = `${GUARD_OFF}import os
size = os.path.getsize('${ZIP}')
for length in (size - 4096, size):
    try:
        os.truncate('${ZIP}', length)
        print('truncated')
    except OSError as error:
        print(error.strerror)`;

/** Imports modules that are not loaded at start, so they come from the zip. */
export const IMPORT_FROM_STDLIB =
  'import fractions, decimal, statistics, datetime\nprint(fractions.Fraction(1, 3) + 1, decimal.Decimal(1) / 4, statistics.median([3, 1, 2]))';

/** The inode the next new file gets. */
export const NEXT_INODE = "import os\nopen('/tmp/probe', 'w').close()\nprint(os.stat('/tmp/probe').st_ino)";
export const MANY_FILES = "for i in range(4200):\n    open(f'/tmp/f{i}', 'w').close()\nprint('made')";

/** The times of the scratch directories and of the stdlib zip, in nanoseconds. */
export const TIMES = `import os
for path in ('/tmp', '.', '${ZIP}'):
    s = os.stat(path)
    print(path, s.st_atime_ns, s.st_mtime_ns, s.st_ctime_ns)`;
export const SET_TIMES = `${GUARD_OFF}import os
os.utime('/tmp', (1, 1))
os.utime('.', (2, 2))
fd = os.open('${ZIP}', os.O_RDONLY)
try:
    os.utime(fd, (3, 3))
    print('stdlib touched')
except OSError as error:
    print(error.strerror)`;

/** Leaves entries in /dev/shm, replaces /dev/null by a directory, makes a file in /proc. */
export const DEV_AND_PROC = `${GUARD_OFF}import os
def attempt(label, action):
    try:
        action()
        print(label, 'done')
    except OSError as error:
        print(label, error.strerror)
attempt('shm', lambda: open('/dev/shm/kept', 'w').write('x'))
def replace_null():
    os.unlink('/dev/null')
    os.mkdir('/dev/null')
attempt('null', replace_null)
proc = os.open('/proc', os.O_RDONLY)
attempt('proc', lambda: os.close(os.open('kept', os.O_CREAT | os.O_WRONLY, dir_fd=proc)))`;
export const LIST_DEV_AND_PROC = "import os\nprint(sorted(os.listdir('/dev/shm')), os.path.isdir('/dev/null'), sorted(os.listdir('/proc')))";

/**
 * Puts memory everywhere a program can without reaching JavaScript, with a budget of 1 MiB a run:
 * a first write (which took a copy without any charge), a pipe, symlink targets, empty directories,
 * /dev/shm (never emptied). Prints how each route ended.
 */
export const HOARD = `${GUARD_OFF}import os
chunk = b'x' * (2 * 2**20)
def attempt(label, action):
    try:
        action()
        print(label, 'kept')
    except OSError as error:
        print(label, error.strerror)
def first_write():
    with open('/tmp/big', 'wb') as f:
        f.write(chunk)
attempt('first write', first_write)
def pipe():
    r, w = os.pipe()
    os.write(w, chunk)
attempt('pipe', pipe)
def symlinks():
    for i in range(100):
        os.symlink('t' * 20000, f'/tmp/link{i}')
attempt('symlinks', symlinks)
def directories():
    for i in range(10000):
        os.mkdir(f'/tmp/d{i}')
attempt('directories', directories)
def shm():
    with open('/dev/shm/big', 'wb') as f:
        f.write(chunk)
attempt('shm', shm)`;

/** Each of these cost the interpreter it ran in (10 os._exit programs: 31 s against 4 s). */
export const INTERPRETER_KILLERS = [
  'import os\nprint("bye", flush=True)\nos._exit(0)',
  'import os\nos._exit(3)',
  'import os\nprint(os.umask(0o77), os.umask(0o22))',
  'import fcntl, os\nprint(fcntl.fcntl(1, fcntl.F_GETFL) >= 0)',
];

/** A class that takes a host error type's name, with a newline and terminal codes. */
export const POSING_ERROR = `class Timeout(Exception):
    pass
Timeout.__name__ = Timeout.__qualname__ = 'Timeout\\n\\x1b[31mInterpreterDied'
raise Timeout('run killed')`;

/** Invalid bytes, each returned as a three-byte U+FFFD: 3x the cap on the tree before. */
export const INVALID_BYTES = "import os\nos.write(1, b'\\xff' * 4000)";
