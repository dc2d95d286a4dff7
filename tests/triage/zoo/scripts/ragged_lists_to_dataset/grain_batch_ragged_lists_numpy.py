"""Grain records hold Python lists of different lengths that grain.Batch must stack.

label: input_pipeline
family: ragged_lists_to_dataset
"""

import grain

records = [{"ids": [1, 2, 3]}, {"ids": [4, 5]}, {"ids": [6, 7, 8]}, {"ids": [9]}]
ds = grain.MapDataset.source(records).batch(2)
for batch in ds:
    print(batch)
