"""Class folders hold .webp files, which image_dataset_from_directory does not list.

label: input_pipeline
family: empty_image_folder
source: UPCCV/cat-vs-dog
"""

import os

import keras

for cls in ("cat", "dog"):
    os.makedirs(f"pets/{cls}", exist_ok=True)
    for i in range(3):
        with open(f"pets/{cls}/{i}.webp", "wb") as fh:
            fh.write(b"RIFF0000WEBPVP8 ")
ds = keras.utils.image_dataset_from_directory("pets", image_size=(32, 32), batch_size=2)
print(ds)
