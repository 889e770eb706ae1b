"""Words about queues left beside migrated code: comments dropped, messages reworded."""
import libcst as cst

from qmigrate import wording


def _statement(text):
    return cst.parse_statement(text)


def test_messages_name_the_stage_that_replaced_the_queue():
    stmt = _statement("print('Filling queue with %d images; Queues: %d' % (n, m), queue_size)\n")
    shuffled = cst.Module([wording.reword_messages(stmt, shuffles=True)]).code
    assert shuffled == "print('Filling shuffle buffer with %d images; Shuffle buffers: %d' % (n, m), queue_size)\n"
    plain = cst.Module([wording.reword_messages(stmt, shuffles=False)]).code
    assert "Filling input pipeline with" in plain


def test_strings_outside_messages_are_not_touched():
    stmt = _statement("name = 'the queue'\n")
    assert wording.reword_messages(stmt, shuffles=True).deep_equals(stmt)


def test_comment_blocks_about_queues_go_whole_and_others_stay():
    stmt = _statement("# Even when reading in threads, share the filename\n# queue.\n\n"
                      "# The data is small.\nx = f(a,  # queue capacity\n      b)  # plain records\n")
    kept = [line.comment.value for line in wording.moved_comments(stmt)]
    assert kept == ["# The data is small.", "# plain records"]


def test_comments_naming_a_queue_class_talk_about_a_queue():
    stmt = _statement("# Shuffle the examples.\n# (Internally uses a RandomShuffleQueue.)\n\n# a PaddingFIFOQueue\n\n"
                      "# The request is queued later.\n\n# A Quest for speed.\nx = f(a)\n")
    kept = [line.comment.value for line in wording.moved_comments(stmt)]
    assert kept == ["# A Quest for speed."]


def test_comments_naming_a_queue_variable_talk_about_a_queue():
    # `filename_queue` names the producer's queue; `min_queue_examples` names a count that stays
    stmt = _statement("# Create filename_queue.\n\n# The input_queue holds names.\n\n"
                      "# min_queue_examples sizes the buffer.\nx = f(a)\n")
    kept = [line.comment.value for line in wording.moved_comments(stmt)]
    assert kept == ["# min_queue_examples sizes the buffer."]
