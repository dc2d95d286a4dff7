"""grain.MapDataset map function divides by a per-record count that is zero for one record.

label: input_pipeline
family: grain_transform_raises
"""

import grain
import numpy as np

records = [{"tokens": np.ones(4), "n": 4}, {"tokens": np.ones(0), "n": 0}]
ds = grain.MapDataset.source(records).map(
    lambda r: {"mean": r["tokens"].sum() // r["n"] if r["n"] else 1 // r["n"]}
)
for x in ds:
    print(x)
