"""Whole dataset built as one numpy array on the host before from_tensor_slices.

label: oom
family: host_array_too_large
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # keep the host safe: fail fast

import numpy as np
import tensorflow as tf

NUM_CLIPS, FRAMES, H, W = 50_000, 64, 224, 224

# preallocate the full video dataset in memory, then fill it
videos = np.zeros((NUM_CLIPS, FRAMES, H, W, 3), dtype=np.float32)
videos[:] = 0.5
ds = tf.data.Dataset.from_tensor_slices(videos).batch(8)
print(next(iter(ds)).shape)
