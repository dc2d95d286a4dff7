"""A Grain DataLoader with worker processes whose transform fails on a malformed record.

label: input_pipeline
family: grain_transform_raises
"""

import grain.python as grain
import numpy as np
from absl import app


class Parse(grain.MapTransform):
    def map(self, record):
        return np.array(record.split(","), dtype=np.float32)


def main(argv):
    source = ["1,2,3", "4,5,6", "7,eight,9", "1,1,1"]
    loader = grain.DataLoader(
        data_source=source,
        sampler=grain.IndexSampler(
            len(source), shard_options=grain.NoSharding(), shuffle=False, num_epochs=1, seed=0
        ),
        operations=[Parse()],
        worker_count=1,
    )
    for x in loader:
        print(x)


if __name__ == "__main__":
    app.run(main)
