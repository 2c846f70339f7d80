/** What real Python (Pyodide, in this process) prints for each program: stdout, exactly. */
import { loadPyodide } from 'pyodide';

export async function pythonStdout(programs: string[]): Promise<string[]> {
  const py = await loadPyodide();
  py.globals.set('programs_json', JSON.stringify(programs));
  return JSON.parse(
    py.runPython(`
import contextlib, io, json
def stdout_of(program):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(program, {})
    return buffer.getvalue()
json.dumps([stdout_of(p) for p in json.loads(programs_json)])
`) as string,
  );
}
