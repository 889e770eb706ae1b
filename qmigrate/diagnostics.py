"""Plain, picklable results: what was found where, and what became of each file."""
import enum
from dataclasses import dataclass, field
from typing import Optional, Tuple


class Safety(enum.IntEnum):
    """How far a fix may be trusted; higher is safer. A report may only lower it."""

    MANUAL = 0  # shown, never applied
    UNSAFE = 1  # valid code, behaviour may differ; applied with --unsafe
    SAFE = 2  # meaning kept; applied by default


class Status(enum.Enum):
    CLEAN = "clean"  # parsed: nothing to migrate
    SKIPPED = "skipped"  # no queue API name in the text: not parsed at all
    MIGRATED = "migrated"  # every finding was fixed
    PARTIAL = "partial"  # some fixes, some findings left
    DIAGNOSED = "diagnosed"  # findings, nothing fixed
    FAILED = "failed"  # could not read or parse


class Failure(enum.Enum):
    """Why a file FAILED."""

    READ = "read"  # the file could not be read
    UNDECODABLE = "undecodable"  # binary, or not text in its declared encoding: skipped
    SYNTAX = "syntax"  # does not parse
    PYTHON2 = "python2"  # parses as Python 2 only
    INTERNAL = "internal"  # a bug of qmigrate's (the traceback is kept)
    VERIFY = "verify"  # the migrated source failed a check: left unchanged
    WRITE = "write"  # the new source could not be written


@dataclass(frozen=True)
class Diagnostic:
    """One finding: where, what (code + message), why, and what to do.

    `fixed` is True when the rewrite of this run removes the construct. `note` marks information
    that asks for no change (a queue that is not an input pipeline): never counted as left behind.
    """

    path: str
    line: int
    column: int
    code: str
    message: str
    fixed: bool = False
    safety: Safety = Safety.SAFE
    note: bool = False

    def sort_key(self):
        return (self.path, self.line, self.column, self.code)


@dataclass(frozen=True)
class FileResult:
    """The outcome for one file. `new_source` is None when nothing changes."""

    path: str
    status: Status
    diagnostics: Tuple[Diagnostic, ...] = ()
    old_source: Optional[bytes] = field(default=None, repr=False)
    new_source: Optional[bytes] = field(default=None, repr=False)
    error: Optional[str] = None
    failure: Optional[Failure] = None  # why, when FAILED
    traceback: Optional[str] = field(default=None, repr=False)  # for an internal error: where it happened

    @property
    def changed(self) -> bool:
        return self.new_source is not None and self.new_source != self.old_source

    @property
    def remaining(self) -> Tuple[Diagnostic, ...]:
        """Findings that this run leaves in the code (notes aside)."""
        return tuple(d for d in self.diagnostics if not d.fixed and not d.note)

    @property
    def notes(self) -> Tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.note)
