"""Find (or build) the TensorFlow 1.x virtualenvs and run helper scripts in them."""
import atexit
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time

from conftest import ROOT, skip_or_fail

_MADE = {}


def tf_python(version: str = "1.8") -> str:
    """The venv's python for a TF version, building it on first use (scripts/make_tf_venv.sh)."""
    if version not in _MADE:
        script = os.path.join(ROOT, "scripts", "make_tf_venv.sh")
        done = subprocess.run(["bash", script, version], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)
        if done.returncode != 0:
            _MADE[version] = None
            _MADE[version + ":why"] = done.stderr.strip().splitlines()[-1:] or ["unknown error"]
        else:
            _MADE[version] = done.stdout.strip().splitlines()[-1]
    if _MADE[version] is None:
        skip_or_fail("TensorFlow %s virtualenv unavailable: %s" % (version, _MADE[version + ":why"][0]))
    return _MADE[version]


def run_tf(python: str, script: str, *args, timeout=600, env=None):
    """Run tests/tf/<script> under `python`; its stdout. Raises with its stderr if it fails."""
    return finish(start_tf(python, script, *args, env=env), timeout=timeout)


def run_tf_status(python: str, script: str, *args, timeout=600, env=None):
    """Run tests/tf/<script> under `python` as run_tf does: (its exit code, its whole stderr),
    whether it fails or not (for scripts that must fail, and say why)."""
    return start_tf(python, script, *args, env=env).status(timeout)


def start_tf(python: str, script: str, *args, env=None) -> "_Forked":
    """Start tests/tf/<script> under `python`, forked from that python's zygote (tf/zygote.py):
    TensorFlow is imported once per python and test run, not once per script. `env` is applied in
    the fork, so it must not hold what TensorFlow reads when it is imported."""
    if python not in _ZYGOTES:
        _ZYGOTES[python] = _Zygote(python)
    return _ZYGOTES[python].start(os.path.join(ROOT, "tests", "tf", script), [str(a) for a in args], env or {})


def finish(process: "_Forked", timeout=600) -> str:
    """Wait for a started script; its stdout. Raises with its stderr if it fails or times out."""
    return process.finish(timeout)


def load_json(path):
    with open(path) as handle:
        return json.load(handle)


_ZYGOTES = {}
_TF_ENV = {"TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONHASHSEED": "0"}


class _Forked:
    """A script running in a fork of a zygote (its stdout and stderr go to files).

    A fork that is still running after half its time is killed and the script run again in a
    process of its own, with the rest of the time: a fork of a process that imported TensorFlow
    once hung with an idle CPU under load (TF 1.15, CI of session 37), where the same script run
    on its own took 5 s, fifteen times in a row. A script that stalls by itself stalls in both and
    still fails."""

    def __init__(self, zygote, pid, folder, python=None, script=None, args=(), env=None):
        self.zygote, self.pid, self.folder = zygote, pid, folder
        self.python, self.script, self.args, self.env = python, script, args, env or {}

    def _read(self, name):
        with open(os.path.join(self.folder, name), errors="replace") as handle:
            return handle.read()

    def finish(self, timeout):
        code, out, err = self._ended(timeout)
        if code != 0:
            raise AssertionError("TF helper failed (exit %d):\n%s" % (code, err[-4000:]))
        return out

    def status(self, timeout):
        """(exit code, whole stderr) once it ends, whatever the code."""
        code, _, err = self._ended(timeout)
        return code, err

    def _ended(self, timeout):
        try:
            code = self.zygote.wait(self.pid, timeout / 2 if self.script else timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.pid, signal.SIGKILL)
            if not self.script:
                raise AssertionError("TF helper timed out after %d s:\n%s" % (timeout, self._read("stderr")[-4000:]))
            return self._alone(timeout / 2)
        out, err = self._read("stdout"), self._read("stderr")
        shutil.rmtree(self.folder, ignore_errors=True)
        return code, out, err

    def _alone(self, timeout):
        """(exit code, stdout, stderr) of the script run again in a process of its own."""
        try:
            done = subprocess.run([self.python, self.script] + list(self.args), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout,
                                  env=dict(os.environ, **_TF_ENV, **self.env))
        except subprocess.TimeoutExpired as expired:
            raise AssertionError("TF helper timed out, forked and then alone, after %d s:\n%s"
                                 % (timeout * 2, (expired.stderr or b"")[-4000:]))
        shutil.rmtree(self.folder, ignore_errors=True)
        return done.returncode, done.stdout, "(run again alone: its fork hung)\n" + done.stderr


class _Zygote:
    """The client of one tf/zygote.py server: jobs go in as JSON lines, replies come back as lines."""

    def __init__(self, python):
        self.python = python
        self.errors = tempfile.NamedTemporaryFile(prefix="qm-zygote-", suffix=".err", delete=False)
        self.process = subprocess.Popen([python, os.path.join(ROOT, "tests", "tf", "zygote.py")],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors,
                                        env=dict(os.environ, **_TF_ENV))
        self.pending, self.exited = b"", {}
        atexit.register(self.close)

    def start(self, script, args, env):
        folder = tempfile.mkdtemp(prefix="qm-tf-")
        job = dict(script=script, args=args, env=env, stdout=os.path.join(folder, "stdout"),
                   stderr=os.path.join(folder, "stderr"))
        self.process.stdin.write((json.dumps(job) + "\n").encode())
        self.process.stdin.flush()
        while True:
            reply = self._reply(120)
            if "started" in reply:
                return _Forked(self, reply["started"], folder, self.python, script, args, env)

    def wait(self, pid, timeout):
        deadline = time.monotonic() + timeout
        while pid not in self.exited:
            self._reply(deadline - time.monotonic())
        return self.exited.pop(pid)

    def _reply(self, timeout):
        """The next reply; an exit is also recorded."""
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.process.stdout], [], [], max(timeout, 0))
            if not ready:
                raise subprocess.TimeoutExpired("zygote", timeout)
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                with open(self.errors.name, errors="replace") as handle:
                    raise AssertionError("the TF zygote ended:\n" + handle.read()[-4000:])
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        reply = json.loads(line.decode())
        if "exited" in reply:
            self.exited[reply["exited"]] = reply["code"]
        return reply

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
        os.unlink(self.errors.name)


def dict_records(python: str, folder) -> list:
    """make_data.py's data in `folder`: the paths of its two TFRecord files of 25 examples each,
    ids 0-24 and 25-49 (features `x`, `id`, `v`)."""
    folder.mkdir()
    run_tf(python, "make_data.py", str(folder))
    return [str(folder / "dict_0.tfrecords"), str(folder / "dict_1.tfrecords")]


def script_json(python: str, script, *args):
    """Run a whole script under `python` (not forked: it builds its own graph and session); the
    JSON its last line of output prints."""
    done = subprocess.run([python, str(script)] + [str(a) for a in args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=300,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])
