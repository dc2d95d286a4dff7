"""image_dataset_from_directory pointed at a folder whose images are not yet copied in.

label: input_pipeline
family: empty_image_folder
source: keras-team/tf-keras
"""

import os

import keras

os.makedirs("data/train", exist_ok=True)
ds = keras.utils.image_dataset_from_directory("data/train", image_size=(64, 64), batch_size=8)
print(ds)
