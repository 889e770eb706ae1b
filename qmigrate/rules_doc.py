"""Rule documentation for people: the --list-rules table and --explain pages."""
import difflib
import inspect
from typing import Optional

from qmigrate.rules import ALL_RULES, rule_by_code


def rule_table() -> str:
    rows = ["%-6s %-26s %-7s %s" % ("code", "name", "safety", "summary")]
    for rule in sorted(ALL_RULES, key=lambda r: r.code):
        rows.append("%-6s %-26s %-7s %s" % (rule.code, rule.__name__, rule.safety.name.lower(), rule.summary()))
    return "\n".join(rows)


def explain(code: str) -> Optional[str]:
    rule = rule_by_code(code.upper())
    if rule is None:
        return None
    lines = ["%s %s (%s)" % (rule.code, rule.__name__, rule.safety.name.lower()), "", inspect.getdoc(rule)]
    lines += ["", "Matches: " + ", ".join(rule.names)]
    for example in rule.examples:
        if example.after is not None:
            lines += ["", "Example (from the rule's tested examples):", ""]
            lines += [line.rstrip("\n") for line in difflib.unified_diff(
                example.before.splitlines(True), example.after.splitlines(True), "before.py", "after.py")]
            break
    return "\n".join(lines)


def reference() -> str:
    """docs/rules.md: every rule's page, in code order (regenerate: python -m qmigrate.rules_doc)."""
    pages = ["# qmigrate rules", "",
             "Generated from the rules' own docstrings and tested examples by `python -m qmigrate.rules_doc`;",
             "a test keeps this file in sync with the code.", "", "```", rule_table(), "```"]
    for rule in sorted(ALL_RULES, key=lambda r: r.code):
        pages += ["", "## %s %s" % (rule.code, rule.__name__), "", "```", explain(rule.code), "```"]
    return "\n".join(pages) + "\n"


if __name__ == "__main__":
    import os

    target = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "rules.md")
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(reference())
