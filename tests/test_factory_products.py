"""Per-record code calling a function a factory made (`fn = get_preprocessing(name)`, slim's
preprocessing_factory shape): the factory is read for the functions it may give, and a pipeline
whose per-record code would make a summary, collection entry or variable in the map function
stays, with the reason (as when it calls such a function by name); when every function it may give
was read and makes none, no note is needed. (Found by running MobileNet's slim trainers migrated:
their preprocessing's image summaries left the program's summaries.)"""
import ast

from qmigrate import api, factories

PIPELINE = '''import tensorflow as tf
{imports}

{factory}

def inputs(pattern, batch_size):
    preprocess_fn = {maker}('net')
    queue = tf.train.string_input_producer(tf.gfile.Glob(pattern))
    _, serialized = tf.TFRecordReader().read(queue)
    features = tf.parse_single_example(serialized, {{'image': tf.FixedLenFeature([], tf.string)}})
    image = tf.image.decode_png(features['image'], channels=3)
    image = preprocess_fn(image, 8)
    return tf.train.batch([image], batch_size=batch_size)
'''

SAME_MODULE = '''def _train(image, size):
    image = tf.image.resize_images(tf.to_float(image), [size, size])
    {summary}
    return image


def _plain(image, size):
    return tf.image.resize_images(tf.to_float(image), [size, size])


def get_preprocessing(name):
    return {{'net': _train, 'other': _plain}}[name]
'''

# slim's preprocessing_factory: a closure over a dict of modules, each with preprocess_image.
FACTORY_MODULE = '''from preprocessing import lenet_preprocessing, vgg_preprocessing


def get_preprocessing(name, is_training=False):
    preprocessing_fn_map = {'lenet': lenet_preprocessing, 'vgg': vgg_preprocessing}
    if name not in preprocessing_fn_map:
        raise ValueError(name)

    def preprocessing_fn(image, output_height, **kwargs):
        return preprocessing_fn_map[name].preprocess_image(image, output_height, output_height,
                                                           is_training=is_training, **kwargs)
    return preprocessing_fn
'''

PREPROCESS = '''import tensorflow as tf


def preprocess_for_train(image, height, width):
    {summary}
    return tf.image.resize_images(tf.to_float(image), [height, width])


def preprocess_image(image, height, width, is_training=False):
    return preprocess_for_train(image, height, width)
'''


def _reasons(result):
    return [d.message.split("; not rewritten: ")[1].split("; to do:")[0] for d in result.diagnostics
            if not d.fixed and "not rewritten" in d.message]


def _same_module(tmp_path, summary):
    path = tmp_path / "inputs.py"
    path.write_text(PIPELINE.format(imports="", factory=SAME_MODULE.format(summary=summary),
                                    maker="get_preprocessing"))
    result, = api.migrate([str(path)], jobs=1)
    return result


def test_a_summary_in_a_function_the_factory_may_give_keeps_the_pipeline(tmp_path):
    result = _same_module(tmp_path, "tf.summary.image('distorted', tf.expand_dims(image, 0))")
    assert not result.changed
    assert ("the per-record code calls `preprocess_fn()` (line 24), made by `get_preprocessing(...)` (line 19), "
            "which may give `_train`, and `tf.summary.image` (line 6, in _train()) makes a summary or collection "
            "entry") in _reasons(result)[0]


def test_a_factory_whose_functions_make_no_state_migrates_without_a_note(tmp_path):
    result = _same_module(tmp_path, "image = tf.image.random_flip_left_right(image)")
    assert result.changed and not [d for d in result.diagnostics if not d.fixed]
    assert "QM909" not in {d.code for d in result.diagnostics}


def _package(tmp_path, lenet_summary, vgg_summary, inside_a_package=False):
    if inside_a_package:  # the script's folder is a package too (slim/__init__.py): `preprocessing` is
        tmp_path = tmp_path / "slim"  # found from the script's folder, which is on the program's path
        tmp_path.mkdir()
        (tmp_path / "__init__.py").write_text("")
    package = tmp_path / "preprocessing"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "preprocessing_factory.py").write_text(FACTORY_MODULE)
    (package / "lenet_preprocessing.py").write_text(PREPROCESS.format(summary=lenet_summary))
    (package / "vgg_preprocessing.py").write_text(PREPROCESS.format(summary=vgg_summary))
    train = tmp_path / "train.py"
    train.write_text(PIPELINE.format(imports="from preprocessing import preprocessing_factory", factory="",
                                     maker="preprocessing_factory.get_preprocessing"))
    results = {r.path: r for r in api.migrate([str(tmp_path)], jobs=1)}
    return results[str(train)]


def test_a_factory_module_over_a_table_of_modules_is_read(tmp_path):
    result = _package(tmp_path, "pass", "tf.summary.image('cropped', tf.expand_dims(image, 0))")
    assert not result.changed
    reason = _reasons(result)[0]
    assert ("made by `preprocessing_factory.get_preprocessing(...)` (line 7), which may give "
            "`vgg_preprocessing.preprocess_image`, and `tf.summary.image` (line 5 of vgg_preprocessing.py, in "
            "preprocess_for_train()) makes a summary or collection entry") in reason


def test_a_factory_module_in_a_package_inside_a_package_is_read(tmp_path):
    result = _package(tmp_path, "tf.summary.image('cropped', tf.expand_dims(image, 0))", "pass",
                      inside_a_package=True)
    assert not result.changed
    assert "which may give `lenet_preprocessing.preprocess_image`" in _reasons(result)[0]


def test_a_table_of_modules_that_make_no_state_migrates_with_the_note(tmp_path):
    """A closure may also call what its factory was handed: never wholly read, so the note stays."""
    result = _package(tmp_path, "pass", "image = tf.identity(image)")
    assert result.changed and not [d for d in result.diagnostics if not d.fixed and not d.note]
    assert "QM909" in {d.code for d in result.diagnostics}


def test_what_a_factory_gives_that_is_not_followed_leaves_the_note(tmp_path):
    path = tmp_path / "inputs.py"
    factory = "def get_preprocessing(name):\n    return make_from_config(name)\n"
    path.write_text(PIPELINE.format(imports="from config import make_from_config", factory=factory,
                                    maker="get_preprocessing"))
    result, = api.migrate([str(path)], jobs=1)
    assert result.changed
    assert "QM909" in {d.code for d in result.diagnostics}


def test_products_of_each_return_form():
    tree = ast.parse(
        "import m\n"
        "TABLE = {'a': f, 'b': m.g}\n"
        "def f(x):\n    return x\n"
        "def by_name():\n    return f\n"
        "def by_module():\n    return m.g\n"
        "def by_table(k):\n    return TABLE[k]\n"
        "def by_literal(k):\n    return {'a': f}[k]\n"
        "def by_closure(k):\n    mods = {'a': m}\n    def fn(x):\n        return mods[k].run(x)\n    return fn\n"
        "def unknown(k):\n    return make(k)\n"
        "def one_unknown(k):\n    if k:\n        return f\n    return k\n"
        "def rebound(k):\n    f = make(k)\n    return f\n")
    names = lambda found: [(p.module, p.name) for p in found]  # noqa: E731
    assert names(factories.products(tree, "by_name")) == [(None, "f")]
    assert names(factories.products(tree, "by_module")) == [("m", "g")]
    assert names(factories.products(tree, "by_table")) == [(None, "f"), ("m", "g")]
    assert names(factories.products(tree, "by_literal")) == [(None, "f")]
    assert names(factories.products(tree, "by_closure")) == [(None, "fn"), ("m", "run")]
    assert factories.products(tree, "unknown") is None
    assert factories.products(tree, "one_unknown") is None
    assert factories.products(tree, "missing") is None
    assert factories.products(tree, "rebound") is None  # its own `f`, not the module's
