"""A Grain MapTransform reads a feature key that some records do not have.

label: input_pipeline
family: grain_transform_raises
"""

import grain.python as grain
import numpy as np


class Tokenize(grain.MapTransform):
    def map(self, record):
        return {"ids": np.array([len(w) for w in record["text"].split()]), "label": record["label"]}


source = [{"text": "a b c", "label": 1}] * 3 + [{"caption": "d e", "label": 0}]
loader = grain.DataLoader(
    data_source=source,
    sampler=grain.IndexSampler(
        len(source), shard_options=grain.NoSharding(), shuffle=False, num_epochs=1, seed=0
    ),
    operations=[Tokenize()],
    worker_count=0,
)
for batch in loader:
    print(batch)
