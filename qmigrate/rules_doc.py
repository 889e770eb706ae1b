"""Rule documentation for people: the --list-rules table and --explain pages."""
import difflib
import inspect
from typing import Optional

from qmigrate.rules import ALL_RULES, rule_by_code, rule_for


def _safety(rule) -> str:
    return "note" if rule.note else rule.safety.name.lower()


def rule_table() -> str:
    rows = ["%-6s %-30s %-7s %s" % ("code", "name", "safety", "summary")]
    for rule in sorted(ALL_RULES, key=lambda r: r.code):
        rows.append("%-6s %-30s %-7s %s" % (rule.code, rule.__name__, _safety(rule), rule.summary()))
    return "\n".join(rows)


def coverage_table() -> str:
    """Every queue API of the master list: the rule that claims it and what becomes of it."""
    from qmigrate.queue_roles import RAW_QUEUES
    from qmigrate.rules.catalogue import QUEUE_APIS
    from qmigrate.rules.unsupported import NOT_MIGRATED, short_name

    rows = ["| API | rule | what qmigrate does |", "| --- | --- | --- |"]
    for name in QUEUE_APIS:
        rule = rule_for(name)
        if name in NOT_MIGRATED:
            what = "reported: %s; to do: %s" % NOT_MIGRATED[name]
        elif rule.note:
            what = "note: %s" % rule.advice
        else:
            what = "%s Where it cannot be, reported with the reason." % rule.summary()
        if name in RAW_QUEUES:
            what += ". A queue whose every dequeue goes back to Python is a QM003 note instead"
        rows.append("| `%s` | %s | %s |" % (short_name(name), rule.code, what.replace("|", "\\|")))
    return "\n".join(rows)


def explain(code: str) -> Optional[str]:
    rule = rule_by_code(code.upper())
    if rule is None:
        return None
    lines = ["%s %s (%s)" % (rule.code, rule.__name__, _safety(rule)), "", inspect.getdoc(rule)]
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
             "a test keeps this file in sync with the code.", "", "```", rule_table(), "```", "",
             "## Coverage by API", "",
             "Every TF 1.x queue API qmigrate knows (`rules/catalogue.py`; a test holds it to the queue-looking",
             "symbols of the real TF 1.8 wheel) and what becomes of it. Nothing here is ever passed over in silence.",
             "", coverage_table()]
    for rule in sorted(ALL_RULES, key=lambda r: r.code):
        pages += ["", "## %s %s" % (rule.code, rule.__name__), "", "```", explain(rule.code), "```"]
    return "\n".join(pages) + "\n"


if __name__ == "__main__":
    import os

    target = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "rules.md")
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(reference())
