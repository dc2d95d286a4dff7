"""Resuming from a saved model file that was never written.

label: checkpoint
family: missing_checkpoint
"""

import keras

model = keras.models.load_model("runs/exp7/model.keras")
