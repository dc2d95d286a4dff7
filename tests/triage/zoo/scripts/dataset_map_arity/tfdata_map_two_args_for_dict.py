"""tf.data map function written for (features, label) while the dataset yields a dict.

label: input_pipeline
family: dataset_map_arity
source: tensorflow/datasets
"""

import tensorflow as tf

ds = tf.data.Dataset.from_tensor_slices({"image": tf.ones((8, 4)), "label": tf.zeros((8,), tf.int32)})


def augment(image, label):
    return tf.image.flip_left_right(image[..., None])[..., 0], label


print(next(iter(ds.map(augment))))
