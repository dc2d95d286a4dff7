"""Custom Grain data source reports a __len__ that counts a shard that is not loaded.

label: input_pipeline
family: grain_index_out_of_range
"""

import grain
import numpy as np


class ShardedSource:
    def __init__(self, shards):
        self.shards = shards
        self.per_shard = 8

    def __len__(self):
        return 4 * self.per_shard  # the job config says 4 shards; only 3 were downloaded

    def __getitem__(self, idx):
        shard, offset = divmod(idx, self.per_shard)
        return self.shards[shard][offset]


source = ShardedSource([np.arange(8) + 8 * s for s in range(3)])
ds = grain.MapDataset.source(source).map(lambda x: x * 2).batch(8)
for batch in ds:
    print(batch)
