"""What each target TensorFlow version offers the synthesiser (from ../shared/tf-api-matrix.md)."""
from dataclasses import dataclass
from typing import Dict


@dataclass(frozen=True)
class Target:
    version: str
    drop_remainder_kwarg: bool  # Dataset.batch(drop_remainder=) exists (1.10+)
    compat_v1: bool  # tf.compat.v1 exists (1.13+)
    iterator_method: bool  # Dataset.make_one_shot_iterator() exists (gone in 2.x)
    contrib: bool  # tf.contrib exists (gone in 2.x)
    unbatch: str  # how to unbatch: "contrib" (1.8), "experimental" (1.12), "method" (1.15)


# version: drop_remainder=, tf.compat.v1, make_one_shot_iterator(), tf.contrib, unbatch
TARGETS: Dict[str, Target] = {
    "1.8": Target("1.8", False, False, True, True, "contrib"),
    "1.10": Target("1.10", True, False, True, True, "contrib"),
    "1.12": Target("1.12", True, False, True, True, "experimental"),
    "1.13": Target("1.13", True, True, True, True, "experimental"),
    "1.15": Target("1.15", True, True, True, True, "method"),
    "2": Target("2", True, True, False, False, "method"),
}
DEFAULT_TARGET = "1.8"
