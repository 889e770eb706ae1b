"""The files migrated together as one program: which module imports which, and who else refers to
a function whose signature a migration changes.

Each file's stdlib tree is made when a question needs it and dropped after (but for files asked
about again, up to a fixed number of source bytes: see Program.tree): what is kept per file is
small (the paths it imports, its words in one index from word to files, and for the files a
question parsed where they name things), so memory stays flat in the size of the set. Every
question is a dict lookup or a walk over the files that mention the name asked about, so the
cost stays linear in the size of the set.
"""
import ast
import collections
import os
import re
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from qmigrate import astindex, memory
from qmigrate.positions import stdlib_tree

_WORD = re.compile(rb"\w+")
# Every byte that is not a word character (those of `_WORD`: ASCII letters, digits, "_") made a
# space: `source.translate(_NOT_WORD_TO_SPACE).split()` lists what `_WORD.findall(source)` does,
# in a third of its time.
_NOT_WORD_TO_SPACE = bytes(byte if _WORD.fullmatch(bytes([byte])) else 32 for byte in range(256))


def words(source: bytes) -> List[bytes]:
    """The maximal runs of word characters in `source`, in order: `_WORD.findall(source)`."""
    return source.translate(_NOT_WORD_TO_SPACE).split()


# The source bytes whose trees a run keeps in the parent (Program.tree): ~70-80 MB of trees.
TREE_SOURCE_BYTES = 2 * 1024 * 1024


def reach(start: Iterable[str], step: Callable[[str], Iterable[str]]) -> Set[str]:
    """`start` and everything `step` reaches from it, directly or not."""
    seen, stack = set(start), list(start)
    while stack:
        for reached in step(stack.pop()):
            if reached not in seen:
                seen.add(reached)
                stack.append(reached)
    return seen

# Per import statement, in walk order: (None, "", names) for `import a.b, c`; (level, module or "",
# names) for `from ... import names`. Small and picklable: a worker sends it with the summary.
ImportSpecs = Tuple[Tuple[Optional[int], str, Tuple[str, ...]], ...]


def relative_base(importer: str, level: int, module: str) -> str:
    """The path, without `.py`, that `from <level dots><module> import ...` in `importer` names
    (the package folder itself when `module` is empty)."""
    package = os.path.dirname(importer)
    for _ in range(level - 1):
        package = os.path.dirname(package)
    return os.path.join(package, module.replace(".", os.sep)) if module else package


def import_specs(tree: ast.AST) -> ImportSpecs:
    """What a module imports, as written (Program.imports resolves it to files of the set)."""
    specs = []
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            specs.append((None, "", tuple(alias.name for alias in node.names)))
        else:
            specs.append((node.level or 0, node.module or "", tuple(alias.name for alias in node.names)))
    return tuple(specs)


_IMPORT_START = re.compile(rb"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import\b|import[ \t]+[\w.])", re.M)


def quick_import_specs(source: bytes) -> Optional[ImportSpecs]:
    """import_specs() of a module read from its import statements alone (each logical line that
    starts like one, parsed by itself): a file the workers did not parse (the prefilter skipped
    it) is not parsed whole to know what it imports. A line inside a string that looks like an
    import counts too (an import too many is safe where this is asked); None when a statement
    found so does not parse (the caller parses the module)."""
    statements = []
    for match in _IMPORT_START.finditer(source):
        end, depth, at = len(source), 0, match.end()
        while at < len(source):
            char = source[at:at + 1]
            if char in b"([{":
                depth += 1
            elif char in b")]}":
                depth -= 1
            elif char == b"#":
                at = source.find(b"\n", at)
                if at < 0:
                    break
                continue
            elif char == b"\n" and depth <= 0 and source[at - 1:at] != b"\\":
                end = at
                break
            at += 1
        statements.append(source[match.start():end].strip())
    if not statements:
        return ()
    try:
        return import_specs(ast.parse(b"\n".join(statements)))
    except (SyntaxError, ValueError):
        return None


def _import_statements(tree: ast.AST) -> List[ast.stmt]:
    """The import statements of a tree, in the order ast.walk gives them: from the analysis's node
    index when it made one, else by a walk of the statements only (an import is no expression)."""
    if astindex.indexed(tree):
        return astindex.nodes(tree, ast.Import, ast.ImportFrom)
    found, queue = [], collections.deque([tree])
    while queue:  # breadth first, as ast.walk
        node = queue.popleft()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                queue.extend(child for child in children if isinstance(child, (ast.stmt, ast.excepthandler))
                             or type(child).__name__ == "match_case")
    return found


class ModuleIndex:
    """Which file of the set `import name` loads: the one beside the importer, else, of the files
    whose path ends like the module's, the one nearest the importer (the most leading folders in
    common: a run over several projects, or a repository of several, may hold a `data/io/reader.py`
    in each), the first in the order given among equals. One dict lookup a question, and a
    comparison of paths where several files end alike."""

    def __init__(self, paths: Iterable[str]):
        self._by_path: Dict[str, str] = {}
        self._by_tail: Dict[str, str] = {}  # the first file ending so
        self._all_by_tail: Dict[str, List[str]] = {}  # every file ending so, where there are several
        for path in paths:
            normal = os.path.normpath(path)
            self._by_path.setdefault(normal, path)
            parts = normal.split(os.sep)
            for start in range(1, len(parts)):
                tail = os.sep.join(parts[start:])
                first = self._by_tail.setdefault(tail, path)
                if first is not path:
                    self._all_by_tail.setdefault(tail, [first]).append(path)

    def module_file(self, importer: str, module_name: str) -> Optional[str]:
        relative = module_name.replace(".", os.sep) + ".py"
        beside = os.path.normpath(os.path.join(os.path.dirname(importer), relative))
        found = self._by_path.get(beside)
        if found is not None:
            return found
        several = self._all_by_tail.get(relative)
        if several is None:
            return self._by_tail.get(relative)
        folders = os.path.normpath(importer).split(os.sep)[:-1]
        return max(several, key=lambda path: _shared_folders(folders, os.path.normpath(path).split(os.sep)[:-1]))

    def partial_package_file(self, module_name: str) -> Optional[str]:
        """The file whose path ends like the module's last parts, two at least (`pkg.sub.mod` →
        `sub/mod.py`), the longest found first: what the import may load when the run holds only a
        folder inside the package, so that the module's leading parts are in no file's path. An
        over-approximation (another `sub/mod.py` may be meant): only for questions where a file too
        many is the safe answer."""
        parts = module_name.split(".")
        for start in range(1, len(parts) - 1):
            found = self._by_tail.get(os.sep.join(parts[start:]) + ".py")
            if found is not None:
                return found
        return None


    def renamed_root_file(self, importer: str, module_name: str) -> Optional[str]:
        """The file an absolute import of the importer's own package may load when the folder
        holding the package has another name (bgshih/aster's modules import `aster.core.x`; a
        checkout or a zip of it is `aster-master/`): the module's parts after the first, under a
        folder above the importer, the nearest first. An over-approximation, for the questions
        of partial_package_file only."""
        parts = module_name.split(".")
        if len(parts) < 2:
            return None
        relative = os.sep.join(parts[1:]) + ".py"
        folder = os.path.dirname(os.path.normpath(importer))
        while True:
            found = self._by_path.get(os.path.join(folder, relative))
            if found is not None and os.path.normpath(found) != os.path.normpath(importer):
                return found
            parent = os.path.dirname(folder)
            if parent == folder:
                return None
            folder = parent


def _shared_folders(one: List[str], other: List[str]) -> int:
    """How many leading folders two paths' folder lists have in common."""
    count = 0
    for a, b in zip(one, other):
        if a != b:
            break
        count += 1
    return count


class Program:
    """The modules of one run: `paths`, whose bytes `source_of(path)` gives (None when unreadable)."""

    def __init__(self, paths: Iterable[str], source_of: Callable[[str], Optional[bytes]],
                 specs: Optional[Dict[str, ImportSpecs]] = None):
        """`specs`: import_specs() of files already parsed elsewhere (the workers), by path; the
        others are parsed here when a question needs them."""
        self._specs = dict(specs or {})
        # Notebooks import modules (their code cells, which source_of gives, are read as a module's)
        # but no module imports them.
        self.paths = [path for path in paths if path.endswith((".py", ".ipynb"))]
        self._known = set(self.paths)
        self._source_of = source_of
        modules = [path for path in self.paths if path.endswith(".py")]
        self._index = ModuleIndex(modules)
        self._imports: Dict[str, Set[str]] = {}
        self._names: Dict[str, ModuleNames] = {}  # path -> its names, for files a question has parsed
        self._partial: Dict[str, Set[str]] = {}  # path -> files its unresolved imports may load
        self._with_partial: Dict[str, Set[str]] = {}  # path -> imported(path, partial=True)
        self._words: Optional[Dict[bytes, List[int]]] = None  # word -> numbers in self.paths of the files with it
        self._mentioned_by: Dict[bytes, Set[str]] = {}  # word -> the files with it, for words asked about
        self._importers: Optional[Dict[str, Set[str]]] = None  # path -> the files that import it directly
        self._related: Dict[str, Set[str]] = {}  # path -> related(path), for paths asked about
        self._closures: Dict[Tuple[str, bool], Set[str]] = {}  # (path, partial) -> closure(path, partial)
        self._mixed: Optional[Set[str]] = None  # names of classes some class derives from beside another
        self._trees: Dict[str, ast.AST] = {}  # path -> its tree, for files parsed again (see tree())
        self._tree_bytes = 0  # the source bytes of the trees kept
        self._parsed_once: Set[str] = set()
        # The last part of every module name that can load a file of the set (a module's file name,
        # a package's folder name): an import naming none of them loads nothing of the set.
        self._module_words: Set[bytes] = {
            os.path.basename(os.path.dirname(path) if os.path.basename(path) == "__init__.py"
                             else path[:-len(".py")]).encode() for path in modules}

    def source(self, path: str) -> Optional[bytes]:
        """The file's bytes, read again at each call (not kept: a run holds one file's at a time)."""
        return self._source_of(path) if path in self._known else None

    def tree(self, path: str) -> Optional[ast.AST]:
        """The file's stdlib tree; callers read it and never change it.

        A tree is ~40-50x its source, so most are parsed at each call, not kept. A file asked
        about a second time is kept (the set-level steps each walk the files that mention their
        names: such a file is likely asked about again), while the kept sources stay under
        TREE_SOURCE_BYTES and the process under memory.KEEP_BELOW_BYTES (with -j 1 it also holds
        the workers' parses). Measured on the development corpus: 946 parses of 511 files in the
        parent, 124 files parsed again for 2.0 of its 4.0 s of parsing; this keeps 1.6 MB of them.
        """
        kept = self._trees.get(path)
        if kept is not None:
            return kept
        source = self.source(path)
        if source is None:
            return None
        tree = stdlib_tree(source)
        if path in self._parsed_once and tree is not None and self._tree_bytes + len(source) <= TREE_SOURCE_BYTES \
                and memory.may_keep():
            self._trees[path] = tree
            self._tree_bytes += len(source)
        self._parsed_once.add(path)
        return tree

    def module_path(self, importer: str, name: str) -> Optional[str]:
        """The file of the set that `import name` in `importer` loads (a module, else a package's
        `__init__.py`): beside the importer first."""
        last = name.rsplit(".", 1)[-1]
        if last != "__init__" and last.encode() not in self._module_words:
            return None  # every file it could load ends with that word (`tensorflow`: none of the set)
        return self._index.module_file(importer, name) or self._index.module_file(importer, name + ".__init__")

    def imports(self, path: str) -> Set[str]:
        """The paths of the set that `path` imports (directly)."""
        if path in self._imports:
            return self._imports[path]
        specs = self._specs.pop(path, None)
        if specs is None:
            source = self.source(path)
            if source is None or (b"from ." not in source and b"from\t." not in source
                                  and self._module_words.isdisjoint(words(source))):
                specs = ()  # no word of it names a module of the set: no parse needed to know
            else:
                specs = quick_import_specs(source)
                if specs is None:
                    tree = stdlib_tree(source)
                    specs = import_specs(tree) if tree is not None else ()
        found: Set[str] = set()
        for level, base, aliases in specs:
            names: List[str] = list(aliases) if level is None else []
            if level:
                relative = relative_base(path, level, base)
                for alias in aliases:
                    for candidate in (relative + ".py", os.path.join(relative, alias + ".py"),
                                      os.path.join(relative, "__init__.py")):
                        if candidate in self._known:
                            found.add(candidate)
                continue
            if level is not None:
                names = [base] + ["%s.%s" % (base, alias) for alias in aliases]
            for name in names:
                target = self.module_path(path, name)
                if target is None:
                    target = (self._index.partial_package_file(name)
                              or self._index.partial_package_file(name + ".__init__")
                              or self._index.renamed_root_file(path, name)
                              or self._index.renamed_root_file(path, name + ".__init__"))
                    if target is not None and target != path:
                        self._partial.setdefault(path, set()).add(target)
                elif target != path:
                    found.add(target)
        self._imports[path] = found
        return found

    def _mentioning(self, word: bytes) -> Set[str]:
        """The files whose words (maximal runs of ASCII word characters) include `word`: the
        same answer as searching `\\bword\\b` in their bytes. Every file is read and split into
        words once, at the first question, into an index from word to files (~30 bytes a posting:
        ~600,000 postings for 20 MB of source)."""
        if self._words is None:
            self._words = {}
            for number, path in enumerate(self.paths):
                source = self.source(path)
                for found in set(words(source)) if source is not None else ():
                    self._words.setdefault(found, []).append(number)
        if word not in self._mentioned_by:
            self._mentioned_by[word] = {self.paths[number] for number in self._words.get(word, ())}
        return self._mentioned_by[word]

    def imported(self, path: str, partial: bool = False) -> Set[str]:
        """The files of the set `path` imports directly; `partial` as for `closure` (callers do
        not change it)."""
        if not partial:
            return self.imports(path)
        if path not in self._with_partial:
            self._with_partial[path] = self.imports(path) | self._partial.get(path, set())
        return self._with_partial[path]

    def closure(self, path: str, partial: bool = False) -> Set[str]:
        """`path` and every file of the set it imports, directly or not. `partial`: also the files
        an import that loads no file of the set may load when the run holds only part of its
        package (ModuleIndex.partial_package_file): for questions where a file too many is safe.
        Made once per path and kind, at the first question (callers do not change it)."""
        key = (path, partial)
        if key not in self._closures:
            self._closures[key] = reach([path], lambda p: self.imported(p, partial))
        return self._closures[key]

    def importers(self, path: str) -> Set[str]:
        """The files of the set that import `path` directly (with the partial imports of
        `closure`). The reverse import graph is made once, at the first question."""
        if self._importers is None:
            self._importers = {}
            for p in self.paths:
                for imported in self.imported(p, partial=True):
                    self._importers.setdefault(imported, set()).add(p)
        return self._importers.get(path, set())

    def related(self, path: str) -> Set[str]:
        """The files whose code may hand `path`'s code a value: those that import it (directly or
        not, `path` among them) and every file they import, directly or not (with the partial
        imports of `closure`)."""
        if path not in self._related:
            self._related[path] = reach(reach([path], self.importers), lambda p: self.imported(p, partial=True))
        return self._related[path]

    def attribute_mentions(self, name: str, defining: str) -> List[Tuple[str, int]]:
        """(path, line) of every `x.name` and every getattr(x, "name") (or setattr, hasattr,
        delattr) in the files other than `defining`: where an attribute of that name may be read."""
        # `x.name` (spaces, new lines or a backslash may stand around the dot) or a string "name":
        # the text test before a parse.
        maybe = re.compile(rb"\.[\s\\]*" + re.escape(name.encode()) + rb"\b|[\"']" + re.escape(name.encode()) + rb"[\"']")
        found = []
        for path in self.files_mentioning(name):
            source = self.source(path) if path != defining else None
            if source is None or not maybe.search(source):
                continue
            index = self.names_in(path)
            found += [(path, line) for line, _ in index.attributes.get(name, ())]
            found += [(path, line) for line in index.by_name.get(name, ())]
        return sorted(set(found))

    def names_in(self, path: str) -> "ModuleNames":
        """Where the file names things (ModuleNames): one parse and one walk of it for every
        question about any name."""
        if path not in self._names:
            self._names[path] = ModuleNames(self.tree(path))
        return self._names[path]

    def files_mentioning(self, name: str) -> Iterable[str]:
        """The files that may mention the identifier `name` as a whole word (`mentions`), and so
        every file with `x.name` or `"name"`: from the word index when it is a name of ASCII word
        characters (exactly those), else every file of the set (the caller tests the text)."""
        word = name.encode()
        return self._mentioning(word) if _WORD.fullmatch(word) else self.paths

    def mentions(self, path: str, name: str) -> bool:
        """Whether the identifier `name` stands as a whole word in the file's bytes (in code,
        comments or strings alike: a filter before parsing)."""
        word = name.encode()
        if _WORD.fullmatch(word):  # a name of ASCII word characters: one of the file's words
            return path in self._mentioning(word)
        source = self.source(path)
        return source is not None and re.search(rb"\b" + re.escape(word) + rb"\b", source) is not None

    def references(self, name: str, defining: str, exclude: Iterable[str] = (),
                   method_of: Optional[str] = None) -> List[Tuple[str, int]]:
        """(path, line) of every mention of the identifier `name` in files other than `defining`:
        a call, an attribute (`module.name`), an import of it (in a file the stdlib parser rejects,
        every line where it stands as a word). Comments and strings do not count, nor
        do plain names in a file that defines its own top-level function or class of that name and
        imports none (they mean its own). With `method_of` (`name` is a method of that class of
        `defining`), only attributes count (another module reaches a method through an object,
        never by a plain name or an import: those are its own function of that name), and not
        `self.name` in a class that defines its own method `name`, when no class of the set derives
        from `method_of` and another class (whose `self.name` could then reach `method_of`'s
        through the method resolution order)."""
        return sorted({(path, line) for path, lines in self.referring_files(name, defining, exclude, method_of)
                       for line in lines})

    def referring_files(self, name: str, defining: str, exclude: Iterable[str] = (),
                        method_of: Optional[str] = None) -> Iterator[Tuple[str, List[int]]]:
        """(path, the lines of its references) for each file with references (as `references`
        counts them), lazily: files already parsed first, and a file is parsed only when the
        iteration reaches it, so a caller that stops at the first one parses few."""
        skip = set(exclude) | {defining}
        mixed = method_of is not None and self._mixed_in(method_of)
        candidates = [path for path in self.files_mentioning(name) if path not in skip]
        candidates.sort(key=lambda path: path not in self._names)  # stable: the parsed ones first
        module = os.path.basename(os.path.dirname(defining)) if os.path.basename(defining) == "__init__.py" \
            else os.path.splitext(os.path.basename(defining))[0]
        for path in candidates:
            lines = self._referring_lines(path, name, method_of, mixed, module)
            if lines:
                yield path, lines

    def refers(self, path: str, name: str) -> bool:
        """Whether the file refers to the identifier `name` as `references` counts (no `method_of`)."""
        return bool(self._referring_lines(path, name, None, False))

    def _referring_lines(self, path: str, name: str, method_of: Optional[str], mixed: bool,
                         module: Optional[str] = None) -> List[int]:
        if not self.mentions(path, name):
            return []
        index = self.names_in(path)
        if not index.parsed:
            return self._unparsed_lines(path, name, module)
        lines: List[int] = []
        if method_of is None:
            if not index.defines_own(name):
                lines += index.names.get(name, ())
            lines += index.imports.get(name, ())
        lines += [line for line, own_method in index.attributes.get(name, ())
                  if not (own_method and method_of is not None and not mixed)]
        return lines

    def _unparsed_lines(self, path: str, name: str, module: Optional[str]) -> List[int]:
        """The lines of a file the stdlib parser rejects (Python 2, mostly) that may refer to `name`
        of the module `module`: it is not read, but it may call it (a helper's signature must not
        change under a caller qmigrate cannot see). Only a file with an import line naming that
        module does; then every line where the name stands as a word counts, but for plain
        mentions of a function or class of that name the file defines at the top and imports
        nowhere (its own, as in a parsed file): `module.name` still counts."""
        source = self.source(path) or b""
        word = re.escape(name.encode())
        if module and not re.search(rb"^\s*(from|import)\s[^\n]*\b" + re.escape(module.encode()) + rb"\b",
                                    source, re.M):
            return []
        pattern = re.compile(rb"\b" + word + rb"\b")
        if re.search(rb"^(def|class)\s+" + word + rb"\b", source, re.M) and not re.search(
                rb"^\s*(from|import)\s[^\n]*\b" + word + rb"\b", source, re.M):
            pattern = re.compile(rb"\.\s*" + word + rb"\b")
        return [number for number, line in enumerate(source.split(b"\n"), 1) if pattern.search(line)]

    def _mixed_in(self, class_name: str) -> bool:
        """Whether a class of the set derives from `class_name` (by its last dotted part) and
        another class."""
        if self._mixed is None:
            self._mixed = self._bases_beside_others()
        return class_name in self._mixed

    def _bases_beside_others(self) -> Set[str]:
        """The (last dotted part of the) bases of every class of the set with several bases: one
        read of each file, a parse only of those whose text has a class header with a comma."""
        found: Set[str] = set()
        for path in self.paths:
            source = self.source(path)
            if source is None or not _SEVERAL_BASES.search(source):
                continue
            tree = self.tree(path)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.ClassDef) and len(node.bases) > 1:
                    found.update(b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                                 if isinstance(b, (ast.Name, ast.Attribute)))
        return found


# `class X(A, B)` (possibly over several lines, bases with calls in them): the cheap test before a
# file's classes are parsed; what it lets through that is no such class is only parsed.
_SEVERAL_BASES = re.compile(rb"\bclass\s+\w+\s*\([^:]*,")


_BY_NAME = ("getattr", "setattr", "hasattr", "delattr")


class ModuleNames:
    """Where a module names things, by name (small: lines only), from one walk of its tree:
    - `names`: lines of each plain name (`ast.Name`);
    - `attributes`: (line, own_method) of each `x.attr`, `own_method` when it is `self.attr` in a
      method of a class that defines its own method `attr` (`self`: the method's first parameter;
      nested functions and classes inside the method included);
    - `by_name`: lines of each getattr(x, "attr") (or setattr, hasattr, delattr);
    - `imports`: lines of each import whose dotted name ends with the name;
    - what `defines_own` needs: top-level functions and classes, names imports bind, a star import."""

    def __init__(self, tree: Optional[ast.Module]):
        self.names: Dict[str, List[int]] = {}
        self.attributes: Dict[str, List[Tuple[int, bool]]] = {}
        self.by_name: Dict[str, List[int]] = {}
        self.imports: Dict[str, List[int]] = {}
        self._top: Set[str] = set()
        self._bound_by_import: Set[str] = set()
        self._star = False
        self.parsed = tree is not None  # False: the stdlib parser rejects the file (all the above empty)
        if tree is None:
            return
        self._top = {node.name for node in tree.body
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        # One walk with, for each node, the (methods of a class, `self` of one of its methods)
        # pairs it is inside: `self.attr` is an own method's where some pair has `attr`.
        stack: List[Tuple[ast.AST, Tuple[Tuple[Set[str], str], ...]]] = [(tree, ())]
        push, AST = stack.append, ast.AST
        while stack:
            node, inside = stack.pop()
            kind = type(node)
            if kind is ast.Name:
                self.names.setdefault(node.id, []).append(node.lineno)
            elif kind is ast.Attribute:
                own = bool(inside) and type(node.value) is ast.Name and any(
                    node.attr in methods and node.value.id == me for methods, me in inside)
                self.attributes.setdefault(node.attr, []).append((node.lineno, own))
            elif kind is ast.Call and type(node.func) is ast.Name and node.func.id in _BY_NAME:
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        self.by_name.setdefault(arg.value, []).append(node.lineno)
            elif kind is ast.Import or kind is ast.ImportFrom:
                for alias in node.names:
                    self.imports.setdefault(alias.name.rsplit(".", 1)[-1], []).append(node.lineno)
                    self._bound_by_import.add(alias.asname or alias.name.split(".")[0])
                    self._star = self._star or alias.name == "*"
            if kind is ast.ClassDef:
                methods = {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child in node.body \
                            and child.args.args:
                        push((child, inside + ((methods, child.args.args[0].arg),)))
                    else:
                        push((child, inside))
                continue
            # The children in ast.iter_child_nodes' order, inline (it is most of the walk's time);
            # a `ctx` (Load, Store) holds nothing asked about.
            for name in node._fields:
                if name == "ctx":
                    continue
                value = getattr(node, name, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, AST):
                            push((item, inside))
                elif isinstance(value, AST):
                    push((value, inside))

    def uses(self, name: str) -> int:
        """How many plain names and attributes (`x.name`) are `name`: a def's own name is neither."""
        return len(self.names.get(name, ())) + len(self.attributes.get(name, ()))

    def defines_own(self, name: str) -> bool:
        """Whether the module defines `name` at top level (def or class) and no import can rebind it."""
        return name in self._top and name not in self._bound_by_import and not self._star
