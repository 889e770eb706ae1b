"""Settings from `[tool.qmigrate]` in the nearest pyproject.toml (command-line options win).

Keys: target-tf, select, ignore, include, exclude, tower-strategy, seed, unsafe.
"""
import os
from typing import Any, Dict, Optional

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

KEYS = {"target-tf": str, "select": list, "ignore": list, "include": list, "exclude": list,
        "tower-strategy": str, "seed": int, "unsafe": bool}


class ConfigError(ValueError):
    """The configuration cannot be read or has a wrong key or value; the text says which."""


def find(start: str) -> Optional[str]:
    """The nearest pyproject.toml at or above `start` that has a [tool.qmigrate] table."""
    folder = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            with open(candidate, "rb") as handle:
                try:
                    if "qmigrate" in tomllib.load(handle).get("tool", {}):
                        return candidate
                except tomllib.TOMLDecodeError:
                    return candidate  # reported by load()
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load(path: str) -> Dict[str, Any]:
    """The [tool.qmigrate] settings of a pyproject.toml, checked."""
    try:
        with open(path, "rb") as handle:
            table = tomllib.load(handle).get("tool", {}).get("qmigrate", {})
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError("%s: %s" % (path, error))
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError("%s: unknown key [tool.qmigrate] %s (known: %s)" % (path, key, ", ".join(KEYS)))
        if not isinstance(value, KEYS[key]):
            raise ConfigError("%s: [tool.qmigrate] %s must be a %s" % (path, key, KEYS[key].__name__))
    return table
