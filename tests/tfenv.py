"""Find (or build) the TensorFlow 1.x virtualenvs and run helper scripts in them."""
import json
import os
import subprocess

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
    """Run tests/tf/<script> under `python`; raise with its stderr if it fails."""
    full_env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONHASHSEED="0")
    full_env.update(env or {})
    done = subprocess.run([python, os.path.join(ROOT, "tests", "tf", script)] + [str(a) for a in args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=timeout, env=full_env)
    if done.returncode != 0:
        raise AssertionError("%s failed (exit %d):\n%s" % (script, done.returncode, done.stderr[-4000:]))
    return done.stdout


def start_tf(python: str, script: str, *args, env=None) -> subprocess.Popen:
    full_env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONHASHSEED="0")
    full_env.update(env or {})
    return subprocess.Popen([python, os.path.join(ROOT, "tests", "tf", script)] + [str(a) for a in args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=full_env)


def finish(process: subprocess.Popen, timeout=600) -> str:
    out, err = process.communicate(timeout=timeout)
    if process.returncode != 0:
        raise AssertionError("TF helper failed (exit %d):\n%s" % (process.returncode, err[-4000:]))
    return out


def load_json(path):
    with open(path) as handle:
        return json.load(handle)
