"""Class names read from a labels.txt that was never copied next to the script.

label: unknown
family: missing_local_config_json
"""

import keras

with open("labels.txt") as f:
    class_names = [line.strip() for line in f]

model = keras.Sequential(
    [keras.Input(shape=(32,)), keras.layers.Dense(len(class_names), activation="softmax")]
)
model.summary()
