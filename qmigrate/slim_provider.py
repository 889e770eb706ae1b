"""What a slim DatasetDataProvider reads, proven from the code: its Dataset's reader and decoder.

The provider reads `dataset.data_sources` with `dataset.reader` and decodes each record with
`dataset.decoder.decode(record, items)` (TF 1.8's dataset_data_provider.py). The rewrite calls
the same decoder in a map function; it is written only when the Dataset is built where this
module shows it (in the function, a function of the module, or one of a module it imports, which
slim_modules finds and reads), with `reader=tf.TFRecordReader` and a TFExampleDecoder whose item
handlers are slim's own and need nothing a one-shot iterator cannot capture, or classes of the
program's own that item_handlers proves. When the records leave unbatched, the decoding stays
where get() ran it and only the reader class is proven. A Dataset made out of sight raises
Unseen (the unsafe fix checks its reader class at run time); anything else seen to differ raises
Unsupported with the construct and its line.
"""
from typing import Callable, Dict, List, Optional, Tuple

import libcst as cst

from qmigrate import cstutil, helpers, item_handlers
from qmigrate.names import ImportMap, dotted
from qmigrate.slim_modules import ModuleView, NotConstant, module_constant
from qmigrate.rules.base import Unsupported

_SLIM_DATA = "tensorflow.contrib.slim.python.slim.data."
DATASET = "tensorflow.contrib.slim.dataset.Dataset"
DECODER = "tensorflow.contrib.slim.tfexample_decoder.TFExampleDecoder"
_HANDLERS = "tensorflow.contrib.slim.tfexample_decoder."
# Handlers that only reshape, decode or stack the parsed features: plain ops, fine in a map
# function. LookupTensor builds a hash table (a one-shot iterator cannot capture one in TF 1.x),
# ItemHandlerCallback runs a function qmigrate does not read; ItemHandler classes of the
# program's own are read by item_handlers.
SAFE_HANDLERS = ("Tensor", "Image", "BoundingBox")
TFRECORD_READER = "tensorflow.TFRecordReader"


class Unseen(Unsupported):
    """The slim Dataset is not visible here (a parameter, another module, a computed value): its
    reader class can still be checked when the pipeline is built, its decoder cannot."""


def slim_name(name: Optional[str]) -> Optional[str]:
    """`tensorflow.contrib.slim.python.slim.data.dataset.Dataset` as `tensorflow.contrib.slim.dataset.Dataset`."""
    if name and name.startswith(_SLIM_DATA):
        return "tensorflow.contrib.slim." + name[len(_SLIM_DATA):]
    return name


def bound_names(target: cst.BaseExpression) -> List[str]:
    """The names an assignment or loop target binds."""
    return _stored(target)


def _stored(target: cst.BaseExpression) -> List[str]:
    """The names an assignment target binds (not those of `a.b = ` or `a[i] = `)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _stored(element.value)]
    if isinstance(target, cst.StarredElement):
        return _stored(target.value)
    return []


class _Bindings(cst.CSTVisitor):
    """Each name's bindings in one function body (nested functions and classes skipped): the
    assigned value for `name = value`, None for any other binding (loop, with, import, unpacking)."""

    def __init__(self):
        self.values: Dict[str, List[Optional[cst.BaseExpression]]] = {}
        self.returns: List[Optional[cst.BaseExpression]] = []

    def visit_FunctionDef(self, node) -> bool:
        return False

    visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.values.setdefault(target.target.value, []).append(node.value)
            else:
                for name in _stored(target.target):
                    self.values.setdefault(name, []).append(None)

    def visit_AugAssign(self, node) -> None:
        for name in _stored(node.target):
            self.values.setdefault(name, []).append(None)

    def visit_For(self, node) -> None:
        for name in _stored(node.target):
            self.values.setdefault(name, []).append(None)

    def visit_AsName(self, node) -> None:
        for name in _stored(node.name):
            self.values.setdefault(name, []).append(None)

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node.value)


def _bindings(function: cst.FunctionDef) -> _Bindings:
    found = _Bindings()
    cstutil.walk(function.body, found)
    return found


def single_value(function: cst.FunctionDef, name: str) -> Optional[cst.BaseExpression]:
    """The value `name = value` binds, when that is the one binding of `name` in `function` (not a
    parameter, not bound otherwise); else None."""
    values = _bindings(function).values.get(name, [])
    if name in cstutil.param_names(function) or len(values) != 1:
        return None
    return values[0]


def literal_dict(name: str, function: cst.CSTNode, loads: int) -> Optional[cst.Dict]:
    """The dict literal a local `name` stands for: bound once in `function`, by `name = {...}`,
    not a parameter, and read once (`loads`: its reads in the function), so nothing changes it."""
    if not isinstance(function, cst.FunctionDef) or name in cstutil.param_names(function) or loads != 1:
        return None
    values = _bindings(function).values.get(name, [])
    return values[0] if len(values) == 1 and isinstance(values[0], cst.Dict) else None


def _default_filled(function: cst.FunctionDef, name: str) -> Optional[cst.BaseExpression]:
    """X for a top-level `if name is None: name = X` (or `if not name:`), with no else, in `function`."""
    for stmt in function.body.body if isinstance(function.body, cst.IndentedBlock) else ():
        if not isinstance(stmt, cst.If) or stmt.orelse is not None:
            continue
        test = stmt.test
        is_none = (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and test.left.value == name
                   and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.Is)
                   and isinstance(test.comparisons[0].comparator, cst.Name)
                   and test.comparisons[0].comparator.value == "None")
        is_not = (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
                  and isinstance(test.expression, cst.Name) and test.expression.value == name)
        if not (is_none or is_not) or not isinstance(stmt.body, cst.IndentedBlock) or len(stmt.body.body) != 1:
            continue
        assign = cstutil.single_assign(stmt.body.body[0])
        if assign and isinstance(assign[0], cst.Name) and assign[0].value == name:
            return assign[1]
    return None


def param_names(function: cst.FunctionDef) -> List[str]:
    """The names of a function's parameters (all kinds)."""
    return cstutil.param_names(function)


class DatasetProof:
    """Proves, for the provider in one function, what its slim Dataset reads and decodes.

    `functions`: the module's top-level functions (a Dataset may be made by one of them);
    `line_of`: a node's line, for reasons; `module`: the module itself (its constants: a table of
    dataset modules, a dict of item handlers); `load`: a slim_modules.ModuleLoader, which finds the
    modules this one imports (a Dataset may be made by a function of one of them). Calls are
    followed through at most MAX_DEPTH functions.
    """

    MAX_DEPTH = 4

    def __init__(self, scope: cst.CSTNode, imports: ImportMap, functions: Dict[str, cst.FunctionDef],
                 line_of: Optional[Callable[[cst.CSTNode], int]], module: Optional[cst.Module] = None,
                 load: Optional[Callable[[str], Optional[ModuleView]]] = None):
        self.scope = scope
        self.here = ModuleView(module if module is not None else cst.Module([]), imports,
                               line_of=line_of or (lambda node: 0))
        self.here.functions = functions
        self.load = load or (lambda name: None)
        self.in_map = True
        # id(function followed into) -> (the call followed, the function it is in, its module)
        self._incoming: Dict[int, Tuple[cst.Call, cst.FunctionDef, ModuleView]] = {}

    def check(self, dataset: cst.BaseExpression, in_map: bool = True) -> None:
        """Returns when the provider's `dataset` argument is a name bound once in the function to
        a slim Dataset that reads TFRecords and decodes with slim's own handlers; raises Unseen
        when that Dataset is made out of sight, Unsupported when it is seen to differ.

        `in_map=False`: the decoding stays where provider.get() ran it, on the record get_next()
        gives (an unbatched read), so any decoder does: only the reader class is proven."""
        self.in_map = in_map
        if not isinstance(dataset, cst.Name):
            raise Unsupported("its slim dataset `%s` is not a plain name, so its reader class and decoder cannot be "
                              "seen; bind it to a name first" % _code(dataset))
        if not isinstance(self.scope, cst.FunctionDef):
            raise Unsupported("it is not in a function, where qmigrate looks for how its slim dataset is made")
        value = self._single_value(self.scope, dataset.value, "its slim dataset")
        self._made_by(value, self.scope, self.here, dataset.value, 0)

    def _single_value(self, function: cst.FunctionDef, name: str, what: str) -> cst.BaseExpression:
        """The value `name` is bound to once in `function`, or Unseen saying why not."""
        if name in cstutil.param_names(function):
            raise Unseen("%s `%s` is a parameter of %s(), so its reader class and decoder cannot be seen here"
                         % (what, name, function.name.value))
        values = _bindings(function).values.get(name, [])
        if len(values) != 1 or values[0] is None:
            raise Unseen("%s `%s` is %s in %s()" % (
                what, name, "not bound" if not values else "bound more than once or not by a plain assignment",
                function.name.value))
        return values[0]

    def _made_by(self, value: cst.BaseExpression, function: cst.FunctionDef, where: ModuleView, name: str,
                 depth: int) -> None:
        """`value` (bound to `name` in `function` of `where`) is slim.dataset.Dataset(...) or a call
        of a function (of this module or of one it imports) that returns one on every path."""
        if not isinstance(value, cst.Call):
            shown = _code(value)
            raise Unseen("its slim dataset `%s` (%s) is not made by a call qmigrate can follow%s" % (
                name, where.at(value), "" if len(shown) > 80 else ": it is `%s`%s" % (shown, (
                    ", attributes of an object made elsewhere" if all(isinstance(arm, cst.Attribute) for arm in (
                        (value.body, value.orelse) if isinstance(value, cst.IfExp) else (value,))) else ""))))
        swapped = _attribute_stores(function, name, ("reader", "decoder"))
        if swapped:
            raise Unsupported("its slim dataset `%s` has its `%s` replaced in %s() (%s)" % (
                name, swapped[0][0], function.name.value, where.at(swapped[0][1])))
        if slim_name(where.resolve(value.func)) == DATASET:
            self._check_dataset_call(value, function, where)
            return
        if depth >= self.MAX_DEPTH:
            raise Unseen("its slim dataset comes through more than %d functions" % self.MAX_DEPTH)
        for helper, there in self._callees(value, function, where, name):
            # How this call fills the helper's parameters (a reader class passed down, or left None).
            self._incoming[id(helper)] = (value, function, where)
            self._returns_dataset(helper, there, depth + 1)

    def _callees(self, call: cst.Call, function: cst.FunctionDef, where: ModuleView,
                 name: str) -> List[Tuple[cst.FunctionDef, ModuleView]]:
        """The functions `call` may run: `f(...)` of the module or imported from one, `module.f(...)`,
        or `TABLE[key].f(...)` with TABLE a module constant mapping keys to imported modules (each
        of them). Unseen when it is none of these or a module is not found."""
        func, local = call.func, set(_bindings(function).values) | set(cstutil.param_names(function))
        shown = "its slim dataset `%s` comes from `%s(...)` (%s)" % (name, _code(func), where.at(call))
        if isinstance(func, cst.Name) and func.value not in local:
            if func.value in where.functions:
                return [(where.functions[func.value], where)]
            imported = where.imports.aliases.get(func.value)
            if imported and "." in imported:
                module_name, _, attr = imported.rpartition(".")
                return [self._function_of(module_name, attr, shown)]
        if isinstance(func, cst.Attribute):
            head = dotted(func.value)
            if head is not None and head.split(".")[0] not in local and head.split(".")[0] in where.imports.aliases:
                return [self._function_of(where.imports.resolve_dotted(head), func.attr.value, shown)]
            table = func.value.value if isinstance(func.value, cst.Subscript) else None
            if isinstance(table, cst.Name) and table.value not in local:
                return [self._function_of(module, func.attr.value, shown)
                        for module in self._table_modules(table.value, where, shown)]
        raise Unseen("%s, which qmigrate cannot follow to the slim Dataset(...) that names its reader class and "
                     "decoder" % shown)

    def _table_modules(self, table: str, where: ModuleView, shown: str) -> List[str]:
        """The modules a module-level dict `table` maps its keys to (a key it lacks fails as before)."""
        try:
            value = module_constant(where, table)
        except NotConstant as error:
            raise Unseen("%s: %s" % (shown, error))
        modules = []
        for element in value.elements if isinstance(value, cst.Dict) else ():
            target = element.value if isinstance(element, cst.DictElement) else None
            resolved = where.imports.aliases.get(target.value) if isinstance(target, cst.Name) else None
            if resolved is None:
                raise Unseen("%s: `%s` maps a key to %s, not to an imported module" % (
                    shown, table, "`%s`" % _code(target) if target is not None else "** unpacking"))
            modules.append(resolved)
        if not modules:
            raise Unseen("%s: `%s` is not a literal dict of imported modules" % (shown, table))
        return modules

    def _function_of(self, module_name: str, attr: str, shown: str) -> Tuple[cst.FunctionDef, ModuleView]:
        there = self.load(module_name)
        if there is None:
            raise Unseen("%s, and the module `%s` is not a file qmigrate finds beside this one or in its package"
                         % (shown, module_name))
        if attr not in there.functions:
            raise Unseen("%s, and %s has no function %s() of its own" % (shown, there.label, attr))
        return there.functions[attr], there

    def _returns_dataset(self, helper: cst.FunctionDef, there: ModuleView, depth: int) -> None:
        """`helper` (of `there`) ends by returning, on every path, a slim Dataset (or what a call it
        can follow returns)."""
        returns = _bindings(helper).returns
        last = helper.body.body[-1] if isinstance(helper.body, cst.IndentedBlock) and helper.body.body else None
        while isinstance(last, cst.With) and isinstance(last.body, cst.IndentedBlock) and last.body.body:
            last = last.body.body[-1]  # `with tf.name_scope(...):` around the body only names its ops
        if not returns or not isinstance(cstutil.single_small(last), cst.Return):
            raise Unsupported("%s() (%s), which makes its slim dataset, does not end by returning it"
                              % (helper.name.value, there.at(helper)))
        for returned in returns:
            name = "returned by %s()" % helper.name.value
            if isinstance(returned, cst.Name):
                name = returned.value
                returned = self._single_value(helper, returned.value, "the slim dataset it returns,")
            if returned is None or not isinstance(returned, cst.Call):
                raise Unseen("its slim dataset comes from %s() (%s), which returns `%s`, not a slim Dataset(...) "
                             "of its own, so the reader class and decoder cannot be seen here" % (
                                 helper.name.value, there.at(helper), _code(returned) if returned else "None"))
            self._made_by(returned, helper, there, name, depth)

    def _parameter_value(self, function: cst.FunctionDef, where: ModuleView, name: str,
                         what: str) -> Tuple[cst.BaseExpression, ModuleView]:
        """(the value, and its module) a parameter holds where the Dataset is made: what the call
        followed into `function` passed for it (through the callers' own parameters, as far as they
        were followed), or `None` left as it is; and when it is None, the value a top-level
        `if name is None: name = X` (or `if not name:`) gives it, slim's dataset modules' way of
        choosing their default reader class. Unseen when any of it cannot be seen."""
        unseen = Unseen("%s `%s` is a parameter of %s(), so its reader class and decoder cannot be seen here"
                        % (what, name, function.name.value))
        passed, passed_where = self._passed(function, where, name, unseen)
        if not (isinstance(passed, cst.Name) and passed.value == "None") and passed_where.resolve(passed) is None:
            raise unseen  # a value of the caller's own (a variable): what it holds is not seen here
        values = _bindings(function).values.get(name, [])
        if not values:
            return passed, passed_where
        default = _default_filled(function, name)
        if default is None or len(values) != 1 or values[0] is not default:
            raise unseen  # rebound in some other way: what it holds at the Dataset is not plain
        if isinstance(passed, cst.Name) and passed.value == "None":
            return default, where
        return passed, passed_where

    def _passed(self, function: cst.FunctionDef, where: ModuleView, name: str,
                unseen: Exception) -> Tuple[cst.BaseExpression, ModuleView]:
        """What the followed call into `function` gives parameter `name` (its default if it gives
        nothing), resolved through the caller's parameters in turn."""
        incoming = self._incoming.get(id(function))
        if incoming is None:
            raise unseen
        call, caller, caller_where = incoming
        try:
            value = helpers.bind_call(function, call).get(name)
        except helpers.NotMovable:  # * or ** arguments: what they fill cannot be read
            raise unseen
        if value is None:  # bind_call gives the defaults of plain parameters; a keyword-only one's here
            value = next((p.default for p in function.params.kwonly_params if p.name.value == name), None)
        if value is None:
            raise unseen
        if any(param.default is value for param in function.params.params + function.params.kwonly_params):
            return value, where  # not passed: the default, read in the function's own module
        if isinstance(value, cst.Name) and value.value in cstutil.param_names(caller):
            if value.value in _bindings(caller).values:
                raise unseen  # the caller rebinds it before the call
            return self._passed(caller, caller_where, value.value, unseen)
        return value, caller_where

    def _argument(self, call: cst.Call, position: int, keyword: str, where: ModuleView) -> Optional[cst.BaseExpression]:
        for index, arg in enumerate(call.args):
            if arg.star:
                raise Unsupported("its slim Dataset(...) (%s) passes arguments with * or **" % where.at(call))
            if (arg.keyword is None and index == position) or (arg.keyword and arg.keyword.value == keyword):
                return arg.value
        return None

    def _local(self, node, function: cst.FunctionDef, where: ModuleView, what: str):
        """A name bound once in `function` stands for its value, a module constant for its own;
        other nodes for themselves."""
        if isinstance(node, cst.Name) and node.value in _bindings(function).values:
            return self._single_value(function, node.value, what)
        if isinstance(node, cst.Name) and node.value not in where.imports.aliases \
                and node.value not in cstutil.param_names(function):
            try:
                return module_constant(where, node.value, node)
            except NotConstant:
                return node
        return node

    def _check_dataset_call(self, call: cst.Call, function: cst.FunctionDef, where: ModuleView) -> None:
        """Dataset(data_sources, reader, decoder, num_samples, items_to_descriptions, **kwargs)."""
        line = where.at(call)
        reader = self._argument(call, 1, "reader", where)
        reader_where = where
        if isinstance(reader, cst.Name) and reader.value in cstutil.param_names(function):
            reader, reader_where = self._parameter_value(function, where, reader.value, "its reader class")
        else:
            reader = self._local(reader, function, where, "its reader class")
        if reader is None or slim_name(reader_where.resolve(reader)) != TFRECORD_READER:
            raise Unsupported("its slim Dataset (%s) reads with %s, not tf.TFRecordReader, the only reader "
                              "class qmigrate reads with a tf.data dataset here" % (
                                  line, "`%s`" % _code(reader) if reader is not None else "no reader class"))
        if not self.in_map:
            return  # the decoder runs where provider.get() ran it, on the same record
        decoder = self._local(self._argument(call, 2, "decoder", where), function, where, "its decoder")
        if not (isinstance(decoder, cst.Call) and slim_name(where.resolve(decoder.func)) == DECODER):
            raise Unsupported("its slim Dataset (%s) decodes with something other than a TFExampleDecoder made "
                              "in the same function; qmigrate cannot see what its decode() runs" % line)
        handlers_arg = self._argument(decoder, 1, "items_to_handlers", where)
        handlers = self._local(handlers_arg, function, where, "its item handlers")
        if not isinstance(handlers, cst.Dict):
            raise Unsupported("the item handlers of its TFExampleDecoder (%s) are not a literal dict in the "
                              "function that makes it" % where.at(decoder))
        if isinstance(handlers_arg, cst.Name) and _item_stores(function, handlers_arg.value):
            raise Unsupported("the item handlers `%s` of its TFExampleDecoder (%s) are changed after they are "
                              "made" % (handlers_arg.value, where.at(decoder)))
        for element in handlers.elements:
            handler = element.value if isinstance(element, cst.DictElement) else None
            name = slim_name(where.resolve(handler.func)) if isinstance(handler, cst.Call) else None
            if name and name.startswith(_HANDLERS) and name[len(_HANDLERS):] in SAFE_HANDLERS:
                continue
            own = item_handlers.handler_class(where, handler) if isinstance(handler, cst.Call) else None
            if own is not None:  # a class of the module's own: every method read
                item_handlers.check_handler_class(where, own)
                continue
            shown = _code(handler.func if isinstance(handler, cst.Call) else element)
            raise Unsupported("its TFExampleDecoder (%s) has the item handler `%s`, %s" % (
                where.at(decoder), shown,
                "which builds a lookup table a one-shot iterator cannot capture" if name and name.endswith(
                    ".LookupTensor") else "whose decoding qmigrate cannot prove safe to run in Dataset.map "
                "(slim's Tensor, Image and BoundingBox are, and classes of the module's own whose code qmigrate reads)"))


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


class _Stores(cst.CSTVisitor):
    """`name.attr = ...` and `name[key] = ...` in one function body (nested functions skipped)."""

    def __init__(self, name: str):
        self.name, self.attributes, self.items = name, [], []

    def visit_FunctionDef(self, node) -> bool:
        return False

    visit_ClassDef = visit_Lambda = visit_FunctionDef

    def _target(self, target) -> None:
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == self.name:
            self.attributes.append((target.attr.value, target))
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) \
                and target.value.value == self.name:
            self.items.append(target)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(target.target)

    def visit_AugAssign(self, node) -> None:
        self._target(node.target)

    def visit_Call(self, node: cst.Call) -> None:  # `handlers.update(...)`, `handlers.pop(...)`
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == self.name \
                and func.attr.value in ("update", "pop", "popitem", "setdefault", "clear", "__setitem__"):
            self.items.append(node)


def _attribute_stores(function: cst.FunctionDef, name: str, attrs) -> List[Tuple[str, cst.CSTNode]]:
    found = _Stores(name)
    cstutil.walk(function.body, found)
    return [(attr, node) for attr, node in found.attributes if attr in attrs]


def _item_stores(function: cst.FunctionDef, name: str) -> List[cst.CSTNode]:
    found = _Stores(name)
    cstutil.walk(function.body, found)
    return found.items


def get_items(call: cst.Call, record_key: Optional[cst.BaseExpression]) -> None:
    """The `items` of `provider.get(items)`: a literal list of literal strings, none of them the
    record key (a TFRecordDataset gives no `file:record` keys). Unsupported otherwise."""
    if len(call.args) != 1 or call.args[0].star or (call.args[0].keyword and call.args[0].keyword.value != "items"):
        raise Unsupported("its get() is not called with one list of items")
    items = call.args[0].value
    if not (isinstance(items, (cst.List, cst.Tuple)) and items.elements and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.SimpleString) for e in items.elements)):
        raise Unsupported("its get() is not given a literal list of item names")
    key = "record_key"
    if record_key is not None:
        if not isinstance(record_key, cst.SimpleString):
            raise Unsupported("its `record_key=` is computed, so which item is the record key is unknown")
        key = record_key.evaluated_value
    for element in items.elements:
        if element.value.evaluated_value == key:
            raise Unsupported("its get() asks for the record key `%s`, the reader's `file:record` key, which a "
                              "TFRecordDataset does not give" % key)


def _provider_get(value, providers: Dict[str, Tuple]) -> Optional[Tuple[str, cst.Call]]:
    """(provider name, the get call) for `provider.get(items)` on a provider of the block."""
    if (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "get"
            and isinstance(value.func.value, cst.Name) and value.func.value.value in providers):
        return value.func.value.value, value
    return None


class _Gets(cst.CSTVisitor):
    def __init__(self, providers):
        self.providers, self.found = providers, []

    def visit_Call(self, node: cst.Call) -> None:
        got = _provider_get(node, self.providers)
        if got is not None:
            self.found.append(got)


def gets_in(stmt: cst.CSTNode, providers: Dict[str, Tuple]) -> List[Tuple[str, cst.Call]]:
    """Every `provider.get(...)` in a statement, on providers of the block."""
    if not providers:
        return []
    finder = _Gets(providers)
    cstutil.walk(stmt, finder)
    return finder.found


class _ReplaceCalls(cst.CSTTransformer):
    def __init__(self, replacements: Dict[int, cst.BaseExpression]):
        self.replacements = replacements  # id(original call) -> its replacement

    def leave_Call(self, original_node, updated_node):
        return self.replacements.get(id(original_node), updated_node)


def decode_statement(stmt: cst.BaseStatement, get_calls: List[cst.Call], dataset: cst.BaseExpression,
                     record: str) -> str:
    """The statement written for the map function: each `provider.get(items)` becomes
    `dataset.decoder.decode(record, items)`, the provider's own decoding (both give a list)."""
    code = cst.Module([]).code_for_node
    decodes = {id(call): cst.parse_expression("%s.decoder.decode(%s, %s)" % (
        code(dataset), record, code(call.args[0].value))) for call in get_calls}
    new = stmt.visit(_ReplaceCalls(decodes)).with_changes(leading_lines=())
    return code(new).rstrip("\n")


def unread_reason(name: str) -> str:
    return ("the provider `%s` is not read by one `%s.get([...])` whose records are batched in the same block "
            "(returned, passed on or used otherwise)" % (name, name))


