"""Nested model config accessed as cfg['model']['num_layers'] but the key is 'n_layers'.

label: unknown
family: config_key_typo
"""

import keras

cfg = {"model": {"n_layers": 3, "hidden": 64, "dropout": 0.1}, "train": {"epochs": 2}}

layers = [keras.Input(shape=(16,))]
for _ in range(cfg["model"]["num_layers"]):
    layers.append(keras.layers.Dense(cfg["model"]["hidden"], activation="relu"))
model = keras.Sequential(layers + [keras.layers.Dense(1)])
