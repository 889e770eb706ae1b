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


TARGETS: Dict[str, Target] = {
    "1.8": Target("1.8", drop_remainder_kwarg=False, compat_v1=False, iterator_method=True, contrib=True),
    "1.10": Target("1.10", drop_remainder_kwarg=True, compat_v1=False, iterator_method=True, contrib=True),
    "1.12": Target("1.12", drop_remainder_kwarg=True, compat_v1=False, iterator_method=True, contrib=True),
    "1.13": Target("1.13", drop_remainder_kwarg=True, compat_v1=True, iterator_method=True, contrib=True),
    "1.15": Target("1.15", drop_remainder_kwarg=True, compat_v1=True, iterator_method=True, contrib=True),
    "2": Target("2", drop_remainder_kwarg=True, compat_v1=True, iterator_method=False, contrib=False),
}
DEFAULT_TARGET = "1.8"
