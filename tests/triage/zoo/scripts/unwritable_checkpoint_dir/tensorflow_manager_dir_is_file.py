"""CheckpointManager directory points at an existing file (the run's config) instead of a folder.

label: checkpoint
family: unwritable_checkpoint_dir
"""

import os
import tempfile

import tensorflow as tf

run = tempfile.mkdtemp()
with open(os.path.join(run, "train"), "w") as f:
    f.write("lr: 0.1\n")

ckpt = tf.train.Checkpoint(step=tf.Variable(1))
manager = tf.train.CheckpointManager(ckpt, os.path.join(run, "train", "checkpoints"), max_to_keep=2)
print(manager.save())
