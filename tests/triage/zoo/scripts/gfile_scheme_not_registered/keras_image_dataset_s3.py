"""keras.utils.image_dataset_from_directory pointed at an s3:// prefix.

label: local_filesystem
family: gfile_scheme_not_registered
"""

import keras

train_ds = keras.utils.image_dataset_from_directory(
    "s3://ml-datasets/flowers/train", image_size=(180, 180), batch_size=32
)
print(train_ds.class_names)
