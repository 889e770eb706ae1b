"""bound_sources: a shuffled producer's computed argument is evaluated once (bound to a name)."""
from qmigrate import bound_sources
from qmigrate.model import Batching, FileSource, Pipeline, SliceSource
from qmigrate.recognise import NamePool
from qmigrate.targets import Target


def _bind(source):
    pipeline = Pipeline(source=source, reader=None, record_function=None, batching=Batching("1"))
    return bound_sources.bind(pipeline, NamePool({"files"}).fresh, "tf", Target("1.8"))


def test_plain_values_stay():
    for files in ("files", "self.files", "[path]", "[files[0]]", "(a, 'b')"):
        assert _bind(FileSource(files=files)) == ([], _bind(FileSource(files=files))[1])
        assert _bind(FileSource(files=files))[1].source.files == files


def test_a_call_is_bound_once_to_a_fresh_name():
    statements, pipeline = _bind(FileSource(files="sorted(glob.glob(pattern))"))
    assert statements == ["files_2 = sorted(glob.glob(pattern))"]
    assert pipeline.source.files == "files_2"


def test_a_pattern_is_matched_once():
    statements, pipeline = _bind(FileSource(files="", pattern="pattern"))
    assert statements == ["files_2 = tf.matching_files(pattern)"]
    assert (pipeline.source.files, pipeline.source.pattern) == ("files_2", None)


def test_unshuffled_sources_use_their_argument_once():
    assert _bind(FileSource(files="obj.files()", shuffle=False))[0] == []


def test_a_computed_slice_tensor_is_bound():
    statements, pipeline = _bind(SliceSource(tensors=("tf.range(10)", "labels")))
    assert statements == ["rows = tf.range(10)"]
    assert pipeline.source.tensors == ("rows", "labels")
