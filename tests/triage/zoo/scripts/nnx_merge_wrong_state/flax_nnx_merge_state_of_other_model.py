"""nnx.merge given the graphdef of one model and the state of a differently sized model.

label: compile_error
family: nnx_merge_wrong_state
source: google/flax
"""

from flax import nnx

small = nnx.Linear(4, 8, rngs=nnx.Rngs(0))
big = nnx.Sequential(nnx.Linear(4, 8, rngs=nnx.Rngs(0)), nnx.Linear(8, 2, rngs=nnx.Rngs(1)))
graphdef, _ = nnx.split(small)
_, state = nnx.split(big)
model = nnx.merge(graphdef, state)
print(model)
