"""How much memory this process holds: what a run checks before it keeps a parse or a tree for
later (a process stays under 300 MB whatever the rest of the run holds)."""
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
