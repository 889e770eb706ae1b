"""The rewrite rules, one module per family. `ALL_RULES` is the registry; `rule_for` looks up by name."""
from typing import Dict, Optional

from qmigrate.rules.batching import Batch, BatchJoin, MaybeBatch, MaybeShuffleBatch, ShuffleBatch, ShuffleBatchJoin
from qmigrate.rules.bucketing import BucketBySequenceLength
from qmigrate.rules.hand_built import HandBuiltQueue
from qmigrate.rules.findings import (
    BatchNotDivisibleAcrossTowers, ClosedQueueMessageExpected, LostSummary, PerTowerPipelines, PerTowerPlaceholders,
    ProducersAlignedBySeed, SharedBatchAcrossTowers, UnseenRecordFunction, UntracedTowerInput)
from qmigrate.rules.prefetch import PrefetchQueue
from qmigrate.rules.producers import (
    InputProducer, MatchFilenamesOnce, RangeInputProducer, SliceInputProducer, StringInputProducer)
from qmigrate.rules.python_fed import PythonFedQueue
from qmigrate.rules.queue_runners import (
    Coordinator, QueueRunnersBlock, RunnersStartedByHand, SessionStartsRunners, StartQueueRunners)
from qmigrate.rules.readers import FixedLengthRecordReader, TextLineReader, TFRecordReader, WholeFileReader
from qmigrate.rules.slim_provider import (
    DatasetDataProvider, ParallelRead, SinglePassRead, SlimReaderClassKept, UnseenSlimDataset)
from qmigrate.rules.target_api import ApiNotInTarget
from qmigrate.rules.unsupported import NonInputQueue, NotebookNotMigrated, QueueApiNotMigrated, QueueClassNamed

ALL_RULES = (
    QueueApiNotMigrated,
    NotebookNotMigrated,
    NonInputQueue,
    QueueClassNamed,
    StringInputProducer,
    InputProducer,
    SliceInputProducer,
    MatchFilenamesOnce,
    RangeInputProducer,
    DatasetDataProvider,
    ParallelRead,
    SinglePassRead,
    UnseenSlimDataset,
    SlimReaderClassKept,
    TFRecordReader,
    FixedLengthRecordReader,
    TextLineReader,
    WholeFileReader,
    Batch,
    ShuffleBatch,
    BatchJoin,
    ShuffleBatchJoin,
    MaybeBatch,
    MaybeShuffleBatch,
    BucketBySequenceLength,
    HandBuiltQueue,
    PythonFedQueue,
    PrefetchQueue,
    StartQueueRunners,
    Coordinator,
    QueueRunnersBlock,
    RunnersStartedByHand,
    SessionStartsRunners,
    SharedBatchAcrossTowers,
    PerTowerPipelines,
    ProducersAlignedBySeed,
    BatchNotDivisibleAcrossTowers,
    PerTowerPlaceholders,
    UntracedTowerInput,
    ApiNotInTarget,
    ClosedQueueMessageExpected,
    UnseenRecordFunction,
    LostSummary,
)

_BY_NAME: Dict[str, type] = {name: rule for rule in ALL_RULES for name in rule.names}
PRODUCERS = (StringInputProducer, InputProducer)  # feed readers
SLICERS = (SliceInputProducer,)  # their outputs are the records
READERS = (TFRecordReader, FixedLengthRecordReader, TextLineReader, WholeFileReader)
BATCHERS = (Batch, ShuffleBatch)
JOINERS = (BatchJoin, ShuffleBatchJoin)  # several readers' records, batched together
FILTERERS = (MaybeBatch, MaybeShuffleBatch)  # records kept by a condition, batched
SLIM_PROVIDERS = (DatasetDataProvider,)  # slim: files, readers and decoding, read with `provider.get(items)`
SLIM_READS = (ParallelRead, SinglePassRead)  # slim: a producer and a reader in one call, `key, value = ...`
BUCKETERS = (BucketBySequenceLength,)  # records batched per bucket of lengths


def rule_for(canonical_name: Optional[str]):
    """The rule claiming a canonical TF name, or None."""
    return _BY_NAME.get(canonical_name) if canonical_name else None


def rule_by_code(code: str):
    return next((rule for rule in ALL_RULES if rule.code == code), None)
