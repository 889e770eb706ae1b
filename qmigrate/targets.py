"""What each target TensorFlow version offers the synthesiser, read from the symbol tables that
scripts/dump_tf_symbols.py generated from the real wheels (qmigrate/data/tf-<version>.txt).

Nothing here is typed in by hand but one measured behaviour no symbol shows (map_takes_graph_seed):
a choice of API follows from whether the target has the symbol or the parameter, so a new target
is one more generated table.
"""
import functools
import os
from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Tuple

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
VERSIONS = ("1.8", "1.10", "1.12", "1.13", "1.15", "2")
DEFAULT_TARGET = "1.8"


class SymbolTable:
    """The public names of one TensorFlow wheel, with the parameter names of its callables.

    `walked` holds the namespaces whose every public attribute the table lists (its
    `# walked: a, b` header line): only names under them can be judged missing.
    """

    def __init__(self, text: str):
        self.params: Dict[str, Optional[Tuple[str, ...]]] = {}
        self.walked: FrozenSet[str] = frozenset()
        self.wheel = ""  # the wheel's version, from the first header line (`# tensorflow 1.8.0, ...`)
        for line in text.splitlines():
            if line.startswith("# tensorflow ") and not self.wheel:
                self.wheel = line[len("# tensorflow "):].split(",")[0].strip()
            if line.startswith("# walked:"):
                self.walked = frozenset(n.strip() for n in line[len("# walked:"):].split(",") if n.strip())
            if not line or line.startswith("#"):
                continue
            name, paren, rest = line.partition("(")
            self.params[name] = tuple(p for p in rest.rstrip(")").split(",") if p) if paren else None

    def has(self, name: str) -> bool:
        return name in self.params

    def accepts(self, name: str, param: str) -> bool:
        return param in (self.params.get(name) or ())

    def missing(self, name: str) -> bool:
        """Whether a dotted name (`tensorflow.image.per_image_whitening`) cannot exist in this wheel:
        some prefix is a walked namespace and the next component is not in it. What lies beyond a
        class, a function or a namespace not walked (`tensorflow.contrib.layers`) is not judged,
        nor are private names (`tensorflow.__version__`), which the tables leave out."""
        return self.first_missing(name) is not None

    def first_missing(self, name: str) -> Optional[str]:
        """The shortest prefix of `name` this wheel lacks (`tensorflow.contrib` for
        `tensorflow.contrib.layers.conv2d` in 2.x), or None when `name` is not judged missing."""
        parts = name.split(".")
        for end in range(1, len(parts)):
            prefix = ".".join(parts[:end])
            if parts[end].startswith("_"):
                return None
            if prefix not in self.walked:
                continue  # a class, or a namespace not walked; one below it may be (tf.contrib.data)
            if prefix + "." + parts[end] not in self.params:
                return prefix + "." + parts[end]
        return None


@functools.lru_cache(maxsize=None)
def symbol_table(version: str) -> SymbolTable:
    with open(os.path.join(DATA_DIR, "tf-%s.txt" % version), encoding="utf-8") as handle:
        return SymbolTable(handle.read())


@dataclass(frozen=True)
class Target:
    """One TensorFlow version. Only the version is stored (it travels to worker processes);
    the properties read the version's symbol table."""

    version: str

    @property
    def symbols(self) -> SymbolTable:
        return symbol_table(self.version)

    @property
    def drop_remainder_kwarg(self) -> bool:
        """`Dataset.batch(drop_remainder=)` (1.10+); before it, a contrib transformation."""
        return self.symbols.accepts("tensorflow.data.Dataset.batch", "drop_remainder")

    @property
    def ensure_shape(self) -> bool:
        """`tf.ensure_shape` (1.12+): a runtime check of a tensor's shape that also sets it."""
        return self.symbols.has("tensorflow.ensure_shape")

    @property
    def iterator_method(self) -> bool:
        """`dataset.make_one_shot_iterator()` (gone in 2.x: `tf.compat.v1.data.make_one_shot_iterator`)."""
        return self.symbols.has("tensorflow.data.Dataset.make_one_shot_iterator")

    @property
    def unbatch(self) -> str:
        """How to unbatch: "method" (2.x), "experimental" (1.12+) or "contrib" (1.8).

        TF 1.15 has `Dataset.unbatch()`, but it returns a V2 dataset, which has no
        make_one_shot_iterator() (measured by the behaviour tests): where iterators are
        methods, the transformation is applied instead.
        """
        if self.symbols.has("tensorflow.data.Dataset.unbatch") and not self.iterator_method:
            return "method"
        return "experimental" if self.symbols.has("tensorflow.data.experimental.unbatch") else "contrib"

    @property
    def shuffle_and_repeat(self) -> Optional[str]:
        """The fused shuffle-and-repeat: "contrib" (1.8), "experimental" (1.12+), or None (2.x).

        `shuffle(b).repeat()` empties the buffer at every epoch end and refills it before the next
        element; the fused transformation keeps reading the next epoch into the buffer (measured
        on 1.8: no stall, every example still once per epoch). TF 2 deprecates it because its
        static optimisations fuse `shuffle(b).repeat()` themselves (measured on 2.21: no stall,
        the same order as the fused op), so 2.x gets the plain stages.
        """
        if not self.iterator_method:
            return None
        return "experimental" if self.symbols.has("tensorflow.data.experimental.shuffle_and_repeat") else "contrib"

    @property
    def group_by_window(self) -> str:
        """Where `group_by_window` lives: "contrib" (1.8, 1.10) or "experimental" (1.12+, also 2.x)."""
        return "experimental" if self.symbols.has("tensorflow.data.experimental.group_by_window") else "contrib"

    @property
    def read_file(self) -> str:
        """The function reading a whole file: `tf.read_file` in 1.x, `tf.io.read_file` in 2.x."""
        return "read_file" if self.symbols.has("tensorflow.read_file") else "io.read_file"

    @property
    def scan(self) -> str:
        """The scan transformation: `tf.contrib.data.scan` (1.8, 1.10), `tf.data.experimental.scan` after."""
        return "data.experimental.scan" if self.symbols.has("tensorflow.data.experimental.scan") else "contrib.data.scan"

    @property
    def string_join(self) -> str:
        """Joining strings: `tf.string_join` in 1.x, `tf.strings.join` in 2.x."""
        return "string_join" if self.symbols.has("tensorflow.string_join") else "strings.join"

    def byte_length(self, tf: str, value: str) -> str:
        """An int64 expression: the length in bytes of the string tensor `value`. Before
        `tf.strings.length` (1.12), the size of its bytes decoded as uint8."""
        if self.symbols.has("tensorflow.strings.length"):
            return "%s.cast(%s.strings.length(%s), %s.int64)" % (tf, tf, value, tf)
        decode = "decode_raw" if self.symbols.has("tensorflow.decode_raw") else "io.decode_raw"
        return "%s.size(%s.%s(%s, %s.uint8), out_type=%s.int64)" % (tf, tf, decode, value, tf, tf)

    @property
    def map_takes_graph_seed(self) -> bool:
        """Whether a dataset function's graph takes the program's graph seed. A behaviour, not a
        symbol, so measured: `tf.get_default_graph().seed` read in a map function is None on 1.8
        and the program's seed on 1.15 and 2.21. 1.10 to 1.13, not measured, count as 1.8 (where
        the graph has the seed already, giving it again changes nothing)."""
        return self.version in ("1.15", "2")

    @property
    def matching_files(self) -> str:
        """The op listing the files of a glob: `tf.matching_files` in 1.x, `tf.io.matching_files` in 2.x."""
        return "matching_files" if self.symbols.has("tensorflow.matching_files") else "io.matching_files"

    @property
    def output_shapes(self) -> str:
        """How to get a dataset's shapes: "property" (1.x) or "compat" (`tf.compat.v1.data.get_output_shapes`)."""
        return "property" if self.symbols.has("tensorflow.data.Dataset.output_shapes") else "compat"


TARGETS: Dict[str, Target] = {version: Target(version) for version in VERSIONS}
