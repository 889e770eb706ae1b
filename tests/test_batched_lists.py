"""batched_lists: the parts of a batched list built with `+`, and the statements that give the
path batching nothing the batched names from the dataset's element kept whole as a list."""
import libcst as cst
import pytest

from qmigrate import batched_lists


@pytest.mark.parametrize("source,statements", [
    ("[image, label] + grams", ["image, label = x[:2]", "grams = x[2:]"]),
    ("grams + [label]", ["grams = x[:-1]", "label = x[-1]"]),
    ("[image] + grams + [label, weight]", ["image = x[0]", "grams = x[1:-2]", "label, weight = x[-2:]"]),
    ("[image, label] + [weight]", ["image, label = x[:2]", "weight = x[2]"]),
    ("[image] + grams + [label] + [weight]", ["image = x[0]", "grams = x[1:-2]", "label = x[-2]", "weight = x[-1]"]),
])
def test_each_part_is_bound_from_its_place_in_the_list(source, statements):
    found = batched_lists.parts(cst.parse_expression(source))
    assert batched_lists.unpacking(found, "x") == statements


@pytest.mark.parametrize("source", ["[image, image] + grams", "grams + masks", "[image[0]] + grams",
                                    "[image, label]", "[image] + (grams)", "[image] + grams * 2"])
def test_other_lists_have_no_parts(source):
    assert batched_lists.parts(cst.parse_expression(source)) is None


@pytest.mark.parametrize("source,count", [("[image, label] + grams", 2), ("[image[0]] + grams", 1),
                                          ("grams + masks", 0), ("[image, label]", None),
                                          ("[*images] + grams", None)])
def test_literal_count_is_what_makes_the_batch_surely_a_list(source, count):
    assert batched_lists.literal_count(cst.parse_expression(source)) == count
