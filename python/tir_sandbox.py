"""Runs model-written Python for the exported agent and tool, through a sandbox the user points to.

TIR_SANDBOX_URL: a SandboxFusion `run_code` endpoint (https://github.com/bytedance/SandboxFusion),
e.g. http://127.0.0.1:8080/run_code. This is the sandbox to use: the code is hostile.
TIR_ALLOW_UNSANDBOXED=1 and no URL: a plain `python3 -I` subprocess in an empty temporary directory
with an empty environment and CPU, memory and file-size limits. That is NOT a sandbox (the code can
read files and reach the network as the training user); it is for a quick local check only.

run.sh also writes both to sandbox.json beside this file, for engine workers that do not inherit the
launching shell's environment (Ray actors).

A result is a dict: ok, stdout, truncated, error_type, error_message (what format_tool_output reads).
Standard library only.
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.request


def _error_from_stderr(stderr):
    """The exception's class and the traceback's last line, as the lab's sandbox reports them."""
    last = stderr.rstrip().split("\n")[-1].strip() if stderr.strip() else ""
    error_type = last.split(":", 1)[0] if ":" in last else (last or "Error")
    return error_type, stderr


def _capped(stdout, max_output_bytes):
    data = stdout.encode("utf-8")
    if len(data) <= max_output_bytes:
        return stdout, False
    return data[:max_output_bytes].decode("utf-8", errors="ignore"), True


def run_with_sandbox_fusion(url, code, timeout_s, max_output_bytes):
    payload = json.dumps({"code": code, "language": "python", "run_timeout": timeout_s, "compile_timeout": timeout_s}).encode("utf-8")
    request = urllib.request.Request(url, data=payload, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s + 30) as response:
        body = json.loads(response.read().decode("utf-8"))
    run = body.get("run_result") or {}
    stdout, truncated = _capped(run.get("stdout") or "", max_output_bytes)
    if run.get("status") == "TimeLimitExceeded":
        return {"ok": False, "stdout": stdout, "truncated": truncated, "error_type": "Timeout",
                "error_message": "Timeout: the run passed %d ms" % int(timeout_s * 1000)}
    if body.get("status") == "Success" and run.get("return_code", 0) == 0:
        return {"ok": True, "stdout": stdout, "truncated": truncated}
    if body.get("status") == "SandboxError" or not run:
        return {"ok": False, "stdout": stdout, "truncated": truncated, "error_type": "InterpreterDied",
                "error_message": "InterpreterDied: " + str(body.get("message", "sandbox error"))}
    error_type, message = _error_from_stderr(run.get("stderr") or "")
    return {"ok": False, "stdout": stdout, "truncated": truncated, "error_type": error_type, "error_message": message}


def _limit_child():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (512 * 2 ** 20, 512 * 2 ** 20))
    resource.setrlimit(resource.RLIMIT_FSIZE, (2 ** 20, 2 ** 20))


def run_in_subprocess(code, timeout_s, max_output_bytes):
    with tempfile.TemporaryDirectory() as cwd:
        try:
            done = subprocess.run([sys.executable, "-I", "-c", code], cwd=cwd, env={}, capture_output=True,
                                  timeout=timeout_s, preexec_fn=_limit_child, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as expired:
            partial = (expired.stdout or b"").decode("utf-8", errors="replace")
            stdout, truncated = _capped(partial, max_output_bytes)
            return {"ok": False, "stdout": stdout, "truncated": truncated, "error_type": "Timeout",
                    "error_message": "Timeout: the run passed %d ms and was killed" % int(timeout_s * 1000)}
    stdout, truncated = _capped(done.stdout.decode("utf-8", errors="replace"), max_output_bytes)
    if done.returncode == 0:
        return {"ok": True, "stdout": stdout, "truncated": truncated}
    error_type, message = _error_from_stderr(done.stderr.decode("utf-8", errors="replace"))
    return {"ok": False, "stdout": stdout, "truncated": truncated, "error_type": error_type, "error_message": message}


def sandbox_settings():
    """(url, allow_unsandboxed) from the environment, else from sandbox.json beside this file."""
    url = os.environ.get("TIR_SANDBOX_URL", "")
    allow = os.environ.get("TIR_ALLOW_UNSANDBOXED", "") == "1"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sandbox.json")
    if not url and not allow and os.path.exists(path):
        with open(path) as f:
            saved = json.load(f)
        url, allow = saved.get("url", ""), saved.get("allow_unsandboxed", False) is True
    return url, allow


def run_code(code, timeout_s, max_output_bytes):
    """Runs `code` where the settings say; refuses to run it when no sandbox was chosen."""
    url, allow_unsandboxed = sandbox_settings()
    if url:
        return run_with_sandbox_fusion(url, code, timeout_s, max_output_bytes)
    if allow_unsandboxed:
        return run_in_subprocess(code, timeout_s, max_output_bytes)
    raise RuntimeError("set TIR_SANDBOX_URL to a SandboxFusion run_code endpoint (or TIR_ALLOW_UNSANDBOXED=1 for a local check)")
