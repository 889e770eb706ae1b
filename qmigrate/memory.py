"""How much memory this process holds: what a run checks before it keeps a parse or a tree for
later (a process stays under 300 MB whatever the rest of the run holds), and how often the
cyclic garbage collector looks at what it holds."""
import contextlib
import gc
import os
from typing import Optional

# Over this resident size a process keeps nothing more for later: it parses again instead.
KEEP_BELOW_BYTES = 200 * 1024 * 1024


def resident_bytes() -> Optional[int]:
    """This process's resident memory now (Linux's /proc), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def may_keep(bound: Optional[int] = None) -> bool:
    """Whether the process is under `bound` (KEEP_BELOW_BYTES if None; True where its size cannot
    be read)."""
    resident = resident_bytes()
    return resident is None or resident <= (KEEP_BELOW_BYTES if bound is None else bound)


# The cyclic collector's thresholds while a run works. A run keeps parsed trees for later passes
# (a libcst tree holds ~138 objects per source byte), and under the default thresholds (700, 10,
# 10) every full collection walks all of them again: on 40 generated tower modules, 10 full
# collections took 2.3-2.8 of 16 CPU s, and on a 2,020-file tree 14 took 6.4-7.5 of 34-41 CPU s.
# A young generation of 10,000 objects lets the temporaries of one file's analysis die before
# the collector sees them, so few objects age into the old generation and full collections
# almost stop (1 in that tree run, the collector's whole time 1.9-2.3 s), for the same peak
# memory (205 MB there either way: a tree has no cycles to collect). A full collection comes
# after 100 of the middle generation's rather than 10: on 200 generated tower modules (-j1) two
# full collections took 0.65-0.74 of 22.6 s, and one took 0.14-0.15 s, for the same peak (158 MB).
RUN_THRESHOLDS = (10000, 10, 100)


@contextlib.contextmanager
def fewer_collections():
    """Within it the collector runs with RUN_THRESHOLDS; the caller's thresholds come back after."""
    before = gc.get_threshold()
    gc.set_threshold(*RUN_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
