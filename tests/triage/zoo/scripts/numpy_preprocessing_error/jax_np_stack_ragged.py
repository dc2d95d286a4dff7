"""Host-side np.stack of per-example arrays whose lengths differ (forgot to pad).

label: unknown
family: numpy_preprocessing_error
"""

import jax
import numpy as np

examples = [np.arange(n) for n in (12, 12, 9, 12)]
batch = np.stack(examples)
print(jax.device_put(batch).shape)
