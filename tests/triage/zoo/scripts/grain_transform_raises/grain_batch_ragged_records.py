"""grain.Batch stacks token arrays of different lengths without padding.

label: input_pipeline
family: grain_transform_raises
"""

import grain.python as grain
import numpy as np

source = [np.arange(n) for n in (3, 5, 4, 3)]
loader = grain.DataLoader(
    data_source=source,
    sampler=grain.IndexSampler(
        len(source), shard_options=grain.NoSharding(), shuffle=False, num_epochs=1, seed=0
    ),
    operations=[grain.Batch(2)],
    worker_count=0,
)
print(next(iter(loader)))
