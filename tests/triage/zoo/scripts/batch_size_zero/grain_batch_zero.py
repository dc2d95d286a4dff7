"""grain.Batch built with a batch size of 0 from a mis-scaled config.

label: input_pipeline
family: batch_size_zero
"""

import grain.python as grain

source = list(range(16))
loader = grain.DataLoader(
    data_source=source,
    sampler=grain.IndexSampler(
        len(source), shard_options=grain.NoSharding(), shuffle=False, num_epochs=1, seed=0
    ),
    operations=[grain.Batch(batch_size=int(0.5 * 1))],
    worker_count=0,
)
print(next(iter(loader)))
