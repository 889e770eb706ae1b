"""A fork server for the TF helper scripts: TensorFlow is imported once, each script runs in a fork.

usage: zygote.py   (run under a TF virtualenv's python; jobs come on stdin, one JSON object a line)

Importing TensorFlow costs 1-5 s of CPU (2.21 most), more than most drains; so does loading
tf.contrib (TF 1.x), which most migrated programs use. The fork of a process
that has imported it, and done nothing else, starts each script as a fresh process would: its own
graph, session, threads and modules; only the import is shared.

Job: {"script": path, "args": [...], "env": {...}, "stdout": path, "stderr": path}.
Replies, one JSON line each: {"started": pid} at once, in the order of the jobs, and
{"exited": pid, "code": n} when that child ends (n < 0: killed by signal -n).
The server is single-threaded (a fork copies only the calling thread: no lock may be held by
another) and ends when stdin closes, after its children.
"""
import json
import os
import runpy
import select
import sys
import traceback

import numpy  # noqa: F401  (the import is what the forks share)
import tensorflow

if hasattr(tensorflow, "contrib"):  # TF 1.x loads contrib on first use: 1-2 s that every migrated run paid
    tensorflow.contrib.data


def _run_child(job) -> int:
    """Runs the script as `python script args...` would, in this (forked) process; its exit code."""
    for stream, path in ((1, job["stdout"]), (2, job["stderr"])):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, stream)
        os.close(fd)
    # Fresh stream objects on the new descriptors: the old ones' buffers belong to the server.
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)
    sys.stdin = open(os.devnull)
    os.environ.update(job["env"])
    extra = [entry for entry in job["env"].get("PYTHONPATH", "").split(os.pathsep) if entry]
    sys.path[:1] = [os.path.dirname(os.path.abspath(job["script"]))] + extra
    sys.argv = [job["script"]] + job["args"]
    try:
        runpy.run_path(job["script"], run_name="__main__")
        return 0
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1


def _say(message) -> None:
    os.write(1, (json.dumps(message) + "\n").encode())


def main() -> None:
    pending, children, closed = b"", set(), False
    while not closed or children:
        if not closed:
            readable, _, _ = select.select([0], [], [], 0.05)
            if readable:
                chunk = os.read(0, 65536)
                closed = not chunk
                pending += chunk
        else:
            select.select([], [], [], 0.05)
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            job = json.loads(line.decode())
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    code = _run_child(job)
                finally:
                    try:
                        sys.stdout.flush()
                        sys.stderr.flush()
                    finally:
                        os._exit(code)
            children.add(pid)
            _say({"started": pid})
        for pid in list(children):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                children.discard(pid)
                code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
                _say({"exited": pid, "code": code})


if __name__ == "__main__":
    main()
