"""Detection head keeps boxes above a score threshold with a boolean mask inside model.apply under jit.

label: dynamic_shape
family: jit_on_boolean_mask
"""

import flax.linen as nn
import jax


class Detector(nn.Module):
    @nn.compact
    def __call__(self, feats):
        boxes = nn.Dense(4)(feats)
        scores = nn.sigmoid(nn.Dense(1)(feats))[..., 0]
        keep = scores > 0.5
        return boxes[keep], scores[keep]


model = Detector()
feats = jax.random.normal(jax.random.key(0), (100, 16))
params = model.init(jax.random.key(1), feats)
boxes, scores = jax.jit(model.apply)(params, feats)
print(boxes.shape)
