"""program.words: the word characters' runs the reference index and import checks read, the same
as the regex `\\w+` over bytes finds."""
import random

from qmigrate.program import _WORD, words


def test_words_are_the_regexs_runs_on_every_byte_and_on_random_bytes():
    every_byte = bytes(range(256)) * 3 + "tf.train.batch(x_1, ñame, 数据) # é\t\x0b\x0c\r\n".encode("utf-8")
    assert words(every_byte) == _WORD.findall(every_byte)
    rng = random.Random(7)
    for _ in range(50):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(2000)))
        assert words(blob) == _WORD.findall(blob)


def test_words_split_at_non_ascii_letters_as_the_regex_does():
    assert words("données_1 x".encode("utf-8")) == [b"donn", b"es_1", b"x"]
