"""Grain MapTransform.map defined with (image, label) while records arrive as one dict.

label: input_pipeline
family: dataset_map_arity
source: tensorflow/datasets
"""

import grain.python as grain
import numpy as np


class Scale(grain.MapTransform):
    def map(self, image, label):
        return image / 255.0, label


source = [{"image": np.ones((4,), np.float32), "label": i} for i in range(8)]
loader = grain.DataLoader(
    data_source=source,
    sampler=grain.IndexSampler(
        len(source), shard_options=grain.NoSharding(), shuffle=False, num_epochs=1, seed=0
    ),
    operations=[Scale(), grain.Batch(4)],
    worker_count=0,
)
print(next(iter(loader)))
