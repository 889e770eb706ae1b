"""Migrate one module: parse → resolve names → recognise pipelines → synthesise → apply → verify.

`analyse` never raises for a module that parses; its result holds no CST nodes once rendered by
`FileAnalysis.result()`.
"""
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from qmigrate import blocks, cstutil, synth
from qmigrate.diagnostics import Diagnostic, FileResult, Safety, Status
from qmigrate.names import ImportMap
from qmigrate.recognise import Match, NamePool, recognise_block
from qmigrate.rules import ALL_RULES, rule_for
from qmigrate.rules import queue_runners
from qmigrate.targets import TARGETS, Target

# A file without any of these words cannot hold queue code: skip it before parsing.
PREFILTER_WORDS = tuple(sorted({name.rsplit(".", 1)[-1] for rule in ALL_RULES for name in rule.names}))

SUPPRESS_MARK = "qmigrate: ignore"


def may_contain_queue_code(source: bytes) -> bool:
    return any(word.encode() in source for word in PREFILTER_WORDS)


@dataclass
class Options:
    target: Target = TARGETS["1.8"]
    unsafe: bool = False


@dataclass
class FileAnalysis:
    """One parsed module and what the migration does to it."""

    path: str
    source: bytes
    module: cst.Module
    new_module: cst.Module
    occurrences: List[Tuple[type, cst.Call, int, int]] = field(default_factory=list)
    reasons: Dict[int, str] = field(default_factory=dict)  # id(call) -> why it stays
    fixed_calls: Set[int] = field(default_factory=set)
    pipelines: int = 0

    @property
    def remaining_queue_calls(self) -> int:
        return sum(1 for rule, call, _, _ in self.occurrences
                   if id(call) not in self.fixed_calls and rule not in _PLUMBING)

    def result(self) -> FileResult:
        diagnostics = []
        for rule, call, line, column in self.occurrences:
            fixed = id(call) in self.fixed_calls
            message = rule.message
            if not fixed:
                reason = self.reasons.get(id(call), _UNLINKED if rule not in _PLUMBING else _PLUMBING_KEPT)
                message += "; not rewritten: %s; to do: %s" % (reason, rule.advice)
            diagnostics.append(Diagnostic(self.path, line, column, rule.code, message, fixed, rule.safety))
        diagnostics.sort(key=Diagnostic.sort_key)
        new_source = self.new_module.bytes if self.new_module is not self.module else None
        if new_source == self.source:
            new_source = None
        if not diagnostics:
            status = Status.CLEAN
        elif new_source is None:
            status = Status.DIAGNOSED
        elif all(d.fixed for d in diagnostics):
            status = Status.MIGRATED
        else:
            status = Status.PARTIAL
        return FileResult(self.path, status, tuple(diagnostics), self.source, new_source)


_PLUMBING = (queue_runners.StartQueueRunners, queue_runners.Coordinator)
_UNLINKED = ("it is not part of a producer → reader → batch chain that qmigrate can follow within one "
             "block (pipelines split across functions or modules are not rewritten yet)")
_PLUMBING_KEPT = "queue code is left in the migrated files, or none of them had a pipeline to migrate"


def analyse(path: str, source: bytes, options: Options) -> FileAnalysis:
    """Recognise and rewrite the pipelines of one module. Raises cst.ParserSyntaxError if it does not parse."""
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    imports = ImportMap(module)
    analysis = FileAnalysis(path, source, module, module)
    suppressed = _suppressed_lines(module)
    for call in _queue_calls(module, imports):
        rule = rule_for(imports.resolve(call.func))
        start = positions[call].start
        if rule.code in suppressed.get(start.line, ()) or "*" in suppressed.get(start.line, ()):
            continue
        analysis.occurrences.append((rule, call, start.line, start.column + 1))
    if not analysis.occurrences:
        return analysis
    rewriter = _PipelineRewriter(module, imports, options.target, analysis)
    new_module = module.visit(rewriter)
    if analysis.pipelines:
        new_module = _ensure_tf_import(new_module, imports, rewriter.tf)
        new_module = drop_unused_tf_imports(module, new_module, imports)
    analysis.new_module = new_module
    return analysis


def drop_unused_tf_imports(old: cst.Module, new: cst.Module, imports: ImportMap) -> cst.Module:
    """Remove TensorFlow imports that the rewrite left unused (they served only the queue code)."""
    before = Counter(cstutil.name_uses(old).loads)
    after = Counter(cstutil.name_uses(new).loads)
    dead = {name for name, target in imports.aliases.items()
            if target.split(".")[0] == "tensorflow" and before[name] and not after[name]}
    return new.visit(_ImportPruner(dead)) if dead else new


class _ImportPruner(cst.CSTTransformer):
    def __init__(self, dead: Set[str]):
        self.dead = dead

    def _bound_name(self, alias: cst.ImportAlias) -> str:
        if alias.asname is not None:
            return alias.asname.name.value
        return cstutil.dotted_head(alias.name)

    def _prune(self, updated_node):
        if isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        kept = [alias for alias in updated_node.names if self._bound_name(alias) not in self.dead]
        if len(kept) == len(updated_node.names):
            return updated_node
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(names=kept)

    def leave_Import(self, original_node, updated_node):
        return self._prune(updated_node)

    def leave_ImportFrom(self, original_node, updated_node):
        return self._prune(updated_node)


def remove_plumbing(analysis: FileAnalysis, set_has_migrated_pipelines: bool, set_has_queues_left: bool) -> None:
    """Drop queue-runner plumbing from an analysed file when no queue can need it any more."""
    if analysis.remaining_queue_calls or set_has_queues_left:
        return
    if not (analysis.pipelines or set_has_migrated_pipelines):
        return
    imports = ImportMap(analysis.new_module)
    plumbing = [(rule, call) for rule, call, _, _ in analysis.occurrences if rule in _PLUMBING]
    if not plumbing:
        return
    new_module, removed, reasons = queue_runners.remove_plumbing(analysis.new_module, imports)
    analysis.new_module = drop_unused_tf_imports(analysis.module, new_module, ImportMap(analysis.module))
    # Calls in the rewritten module are new nodes; match them to the originals by order.
    for rule, call in plumbing:
        key = rule.code
        if removed.get(key):
            removed[key] -= 1
            analysis.fixed_calls.add(id(call))
        elif key in reasons:
            analysis.reasons[id(call)] = reasons[key]


def verify(analysis: FileAnalysis) -> Optional[str]:
    """None when the new source parses; otherwise why it does not (then nothing may be written)."""
    if analysis.new_module is analysis.module:
        return None
    try:
        cst.parse_module(analysis.new_module.bytes)
    except cst.ParserSyntaxError as error:
        return "the rewritten source does not parse (%s); left unchanged" % error.message
    return None


def _suppressed_lines(module: cst.Module) -> Dict[int, Set[str]]:
    """Line → codes silenced by `# qmigrate: ignore[QM301,QM302]` (bare: all codes)."""
    out: Dict[int, Set[str]] = {}
    for number, line in enumerate(module.code.splitlines(), 1):
        at = line.find("#")
        if at < 0 or SUPPRESS_MARK not in line[at:]:
            continue
        rest = line[at:].split(SUPPRESS_MARK, 1)[1]
        if rest.startswith("["):
            out[number] = {code.strip() for code in rest[1:].split("]", 1)[0].split(",")}
        else:
            out[number] = {"*"}
    return out


class _CallCollector(cst.CSTVisitor):
    def __init__(self, imports: ImportMap):
        self.imports = imports
        self.calls: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if rule_for(self.imports.resolve(node.func)) is not None:
            self.calls.append(node)


def _queue_calls(module: cst.Module, imports: ImportMap) -> List[cst.Call]:
    collector = _CallCollector(imports)
    module.visit(collector)
    return collector.calls


class _PipelineRewriter(cst.CSTTransformer):
    """Rewrites every recognised pipeline in place, one root block at a time (all its edits or none)."""

    def __init__(self, module: cst.Module, imports: ImportMap, target: Target, analysis: FileAnalysis):
        self.module = module
        self.imports = imports
        self.target = target
        self.analysis = analysis
        self.tf = imports.local_name_for("tensorflow") or "tf"
        self.names = NamePool(set(cstutil.name_uses(module).stores) | set(cstutil.name_uses(module).loads))
        self.scopes: List[cst.CSTNode] = [module]
        self.parents: List[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.parents.append(node)
        if isinstance(node, cst.FunctionDef):
            self.scopes.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        self.parents.pop()
        if isinstance(original_node, cst.FunctionDef):
            self.scopes.pop()
        return result

    def leave_IndentedBlock(self, original_node, updated_node):
        if isinstance(self.parents[-2], cst.With):
            return updated_node  # opened up by the enclosing root block
        return updated_node.with_changes(body=self._rewrite_root(original_node.body, updated_node.body))

    def leave_Module(self, original_node, updated_node):
        return updated_node.with_changes(body=self._rewrite_root(original_node.body, updated_node.body))

    def _rewrite_root(self, original_body, updated_body):
        leaves = blocks.flatten(original_body, updated_body)
        found = recognise_block([leaf.original for leaf in leaves], self.scopes[-1], self.imports, self.names,
                                self.module.code_for_node)
        for failure in found.failures:
            for call in failure.calls:
                self.analysis.reasons.setdefault(id(call), failure.reason)
        if not found.matches:
            return updated_body
        replacements: Dict[blocks.Path, List[cst.BaseStatement]] = {}
        removed: Set[blocks.Path] = set()
        for match in found.matches:
            self._apply(match, leaves, replacements, removed)
            self.analysis.fixed_calls.update(id(call) for call in match.calls)
            self.analysis.pipelines += 1
        return blocks.rebuild(updated_body, replacements, removed)

    def _apply(self, match: Match, leaves, replacements, removed) -> None:
        pipeline = match.pipeline
        chain = [leaves[i] for i in (match.producer_index, match.reader_index, match.read_index)]
        batch = leaves[match.batch_index]
        removed.update(leaf.path for leaf in chain)
        # Comments on the queue plumbing describe the pipeline: they go above the new chain.
        comments = []
        for leaf in chain + [batch]:
            comments += cstutil.comments_in(leaf.updated)
        function = None
        if pipeline.record_function is not None:
            record_leaves = [leaves[i] for i in match.record_indices]
            # The function is defined where the read was: `with`s around it already hold it.
            enclosing = {id(w) for w in chain[2].withs}
            body = blocks.regroup(record_leaves, lambda w: id(w) not in enclosing and self._scoping(w))
            function = self._record_function(pipeline.record_function, body)
            blank = [line for line in chain[0].updated.leading_lines if line.comment is None]
            replacements[chain[2].path] = [function.with_changes(leading_lines=blank)]
            removed.update(leaf.path for leaf in record_leaves)

        tf, config = self.tf, self.module.config_for_parsing
        statements = [cst.parse_statement(text, config) for text in synth.dataset_statements(pipeline, tf, self.target)]
        leading = [line for line in batch.updated.leading_lines if line.comment is None]
        if function is not None and not leading:
            leading = [cst.EmptyLine(indent=False)]  # a blank line after the nested function
        statements[0] = statements[0].with_changes(leading_lines=leading + comments)
        statements.append(self._consume(batch.updated, match))
        replacements[batch.path] = statements

    def _scoping(self, with_node: cst.With) -> bool:
        """Whether a `with` around per-record code goes into the map function with it.

        Name and variable scopes do; device scopes do not: dataset functions run where the
        iterator runs, and a `/gpu:N` inside them would need soft placement.
        """
        for item in with_node.items:
            call = item.item
            if isinstance(call, cst.Call) and self.imports.resolve(call.func) == "tensorflow.device":
                return False
        return True

    def _record_function(self, function, statements) -> cst.FunctionDef:
        config = self.module.config_for_parsing
        template = cst.parse_statement("def %s(%s):\n    return %s\n" % (
            function.name, ", ".join(function.params), function.returns), config)
        if statements:
            # A blank line that separated the first record statement now separates the function.
            first = statements[0]
            kept = [line for line in first.leading_lines if line.comment is not None]
            statements = [first.with_changes(leading_lines=kept)] + list(statements[1:])
        body = template.body.with_changes(body=list(statements) + list(template.body.body))
        return template.with_changes(body=body)

    def _consume(self, batch_stmt: cst.SimpleStatementLine, match: Match) -> cst.BaseStatement:
        """The batching statement, its call replaced by the iterator's next element."""
        element = synth.next_element(match.pipeline.dataset_name, self.tf, self.target)
        small = batch_stmt.body[0]
        if (match.element_kind == "tuple" and isinstance(small, cst.Assign)
                and not isinstance(small.targets[0].target, (cst.Tuple, cst.List))):
            element = "list(%s)" % element  # tf.train.batch returned a list
        new_value = cst.parse_expression(element, self.module.config_for_parsing)
        return cst.SimpleStatementLine([small.with_changes(value=new_value)])


def _ensure_tf_import(module: cst.Module, imports: ImportMap, tf: str) -> cst.Module:
    """Add `import tensorflow as tf` when the file reached TensorFlow only through other names."""
    if imports.local_name_for("tensorflow"):
        return module
    body = list(module.body)
    position = 0
    for index, stmt in enumerate(body):
        small = cstutil.single_small(stmt)
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            position = index + 1
    body.insert(position, cst.parse_statement("import tensorflow as %s\n" % tf))
    return module.with_changes(body=body)
