"""Grain MapDataset transform fails on one record (a missing key) while iterating.

label: input_pipeline
family: generator_raises
"""

import grain
import numpy as np

records = [
    {"tokens": np.arange(4), "label": 1},
    {"tokens": np.arange(5), "label": 0},
    {"tokens": np.arange(3)},
]


def to_example(rec):
    return {"tokens": np.pad(rec["tokens"], (0, 8 - len(rec["tokens"]))), "label": np.int32(rec["label"])}


ds = grain.MapDataset.source(records).map(to_example).batch(2)
for batch in ds:
    print(batch["tokens"].shape, batch["label"])
