"""Files that libcst parses but Python 3 refuses, Python 2 syntax above all (`except IOError, e:`).

libcst's grammar is more lenient than CPython's: analysing such a file as Python 3 would report,
and rewrite, code that never ran under Python 3. The stdlib parser is the judge.
"""
import ast
import re
import warnings
from typing import Optional

PYTHON2_ADVICE = "Python 2 syntax: convert it to Python 3 first"

# What the stdlib parser says, or the refused line shows, when the syntax is Python 2's.
_PYTHON2_MESSAGES = ("multiple exception types must be parenthesized", "Missing parentheses in call to",
                     "leading zeros in decimal integer literals")
_PYTHON2_LINES = re.compile(
    r"""^\s*except\b[^:]*,\s*\w+\s*:"""  # except E, e:
    r"""|^\s*raise\s+[^,(]+,"""  # raise E, "message"
    r"""|<>|`"""  # the <> operator, backtick repr
    r"""|\b\d+[lL]\b"""  # long literals
    r"""|\b[uU][rR]['"]"""  # ur'' strings
    r"""|^\s*(print|exec)\s+[^\s(=.]""")  # print / exec statements


class NotPython3(Exception):
    """The stdlib parser refuses a file that libcst parsed. `python2`: the refusal is Python 2 syntax."""

    def __init__(self, message: str, python2: bool):
        super().__init__(message)
        self.python2 = python2


def check(source: bytes) -> None:
    """Raise NotPython3 if CPython cannot parse `source` as Python 3.6 or later; otherwise nothing.

    Only a SyntaxError counts: a tree too deep for the stdlib parser is not the file's fault.
    """
    refusal = _refusal(source)
    if refusal is None:
        return
    line_text = (refusal.text or "").strip()
    # Python 2 read a tab as indentation to the next multiple of 8 columns, mixed with spaces or
    # not; Python 3 refuses what that makes ambiguous (TabError).
    python2 = (isinstance(refusal, TabError) or any(m in (refusal.msg or "") for m in _PYTHON2_MESSAGES)
               or bool(_PYTHON2_LINES.search(line_text)))
    where = "line %s: %s" % (refusal.lineno, refusal.msg)
    if python2:
        raise NotPython3("%s (%s)" % (PYTHON2_ADVICE, where), True)
    raise NotPython3("does not parse as Python 3: %s" % where, False)


def where_refused(source: bytes) -> Optional[str]:
    """"line N: why" where CPython refuses `source` as Python 3, or None when it parses it."""
    refusal = _refusal(source)
    return None if refusal is None else "line %s: %s" % (refusal.lineno, refusal.msg)


def _refusal(source: bytes) -> Optional[SyntaxError]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the user's invalid escapes are not ours to warn about
        try:
            ast.parse(source)
            return None
        except SyntaxError as error:
            first = error
        except (ValueError, RecursionError, MemoryError):
            return None
        try:
            # Code written for 3.6 may use `async` as a name: that grammar is tried before refusing.
            ast.parse(source, feature_version=(3, 6))
            return None
        except SyntaxError:
            return first
        except (ValueError, RecursionError, MemoryError):
            return None
