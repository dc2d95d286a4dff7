"""Labels read as a numpy object array (mixed ints and strings) are converted to a tensor for the XLA device.

label: unsupported_dtype
family: object_array_to_tensor
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"

import numpy as np
import torch
import torch_xla

labels = np.array([1, 0, "1", 2], dtype=object)
y = torch.from_numpy(labels).to(torch_xla.device())
print(y)
