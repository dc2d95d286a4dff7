"""Short training logs written for these tests, one per situation, in the frameworks' own formats.

Each ends in (or contains) the error the test expects; the ordinary lines around it are there so the
engine has to find the error rather than be handed it.
"""

STEPS = "".join(
    f"I0221 11:59:{i:02d}.000000 140001 train.py:210] step {i} loss={2.5 - i / 100:.3f}\n" for i in range(20)
)

OOM_JAX = (
    STEPS
    + """\
Traceback (most recent call last):
  File "/home/me/proj/train.py", line 141, in <module>
    state, metrics = p_train_step(state, batch)
  File "/usr/local/lib/python3.10/site-packages/jax/_src/traceback_util.py", line 179, in reraise
    return fun(*args, **kwargs)
jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran \
out of memory in memory space hbm. Used 18.31G of 15.48G hbm. Exceeded hbm capacity by 2.83G.
"""
)

OOM_TF_RUNTIME = (
    STEPS
    + """\
2024-02-21 12:00:01.000000: W tensorflow/core/framework/op_kernel.cc:1830] OP_REQUIRES failed at \
tpu_execute_op.cc:266 : RESOURCE_EXHAUSTED: Attempting to reserve 5.10G at the bottom of memory. \
That was not possible. There are 3.20G free, 0B reserved, and 3.20G reservable.
tensorflow.python.framework.errors_impl.ResourceExhaustedError: Attempting to reserve 5.10G at the \
bottom of memory. That was not possible. There are 3.20G free, 0B reserved, and 3.20G reservable.
"""
)

DYNAMIC_TF = """\
Traceback (most recent call last):
  File "model_main.py", line 77, in <module>
    estimator.train(input_fn=train_input_fn, max_steps=10000)
ValueError: shape [?,224,224,3] must have a fixed size for dimension 0 that is known at graph \
construction time.
"""

DYNAMIC_JAX = """\
  File "/work/loss.py", line 31, in masked_mean
    kept = x[mask]
jax.errors.NonConcreteBooleanIndexError: Array boolean indices must be concrete; got \
bool[128] (Traced<ShapedArray(bool[128])>with<DynamicJaxprTrace>)
"""

UNSUPPORTED_OP_TF = """\
INFO:tensorflow:Found TPU system:
tensorflow.python.framework.errors_impl.NotFoundError: No registered 'ImageProjectiveTransformV3' \
OpKernel for XLA_TPU_JIT devices compatible with node {{node transform/ImageProjectiveTransformV3}}
"""

UNSUPPORTED_OP_JAX = """\
NotImplementedError: MLIR translation rule for primitive 'my_custom_call' not found for platform tpu
"""

UNSUPPORTED_DTYPE_TF = """\
Traceback (most recent call last):
  File "run_classifier.py", line 402, in main
    estimator.train(input_fn=train_input_fn, max_steps=num_train_steps)
TypeError: DataType int64 is not a supported TPU infeed type.
"""

UNSUPPORTED_DTYPE_JAX = """\
jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Element type F64 is not supported on TPU.
"""

CONNECTION_TF = (
    STEPS
    + """\
2024-02-21 12:00:05.000000: W tensorflow/core/distributed_runtime/rpc/grpc_remote_master.cc:157] \
RPC failed with status = "Unavailable: Socket closed" and grpc_error_string = \
"{"description":"Error received from peer ipv4:10.128.0.7:8470","grpc_message":"Socket closed",\
"grpc_status":14}", maybe retrying the RPC
tensorflow.python.framework.errors_impl.UnavailableError: Socket closed
"""
)

CONNECTION_JAX = (
    STEPS
    + """\
E0221 12:00:09.000000 140001 coordination_service_agent.cc:332] Polled an error from coordination \
service (this can be an error from this or another task).
2024-02-21 12:00:09.000000: E external/xla/xla/tsl/distributed_runtime/coordination/\
coordination_service.cc:1063] /job:jax_worker/replica:0/task:3 has been set to ERROR in \
coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:3 heartbeat timeout.
"""
)

LOCAL_FS = """\
INFO:tensorflow:Calling model_fn.
tensorflow.python.framework.errors_impl.UnimplementedError: File system scheme '[local]' not \
implemented (file: '/home/me/data/train-00001-of-00064.tfrecord')
"""

STRATEGY = """\
Traceback (most recent call last):
  File "/home/me/finetune.py", line 58, in <module>
    history = model.fit(train_ds, epochs=3)
ValueError: Trying to create optimizer slot variable under the scope for tf.distribute.Strategy \
(<tensorflow.python.distribute.tpu_strategy.TPUStrategyV2 object at 0x7f00aa>), which is different \
from the scope used for the original variable (<tf.Variable 'dense/kernel:0' shape=(768, 2)>).
"""

INPUT = (
    STEPS
    + """\
Traceback (most recent call last):
  File "/home/me/train.py", line 120, in train_loop
    batch = next(iterator)
tensorflow.python.framework.errors_impl.OutOfRangeError: End of sequence
\t [[{{node IteratorGetNext}}]]
"""
)

CHECKPOINT = """\
I0221 12:00:00.000000 140001 checkpoints.py:540] Saving checkpoint at step 5000
Traceback (most recent call last):
  File "/home/me/train.py", line 300, in save
    ckpt_manager.save(step)
tensorflow.python.framework.errors_impl.NotFoundError: Key dense_3/kernel not found in checkpoint
"""

CHECKPOINT_PERMISSION = """\
PermissionError: Failed to write gs://my-bucket/runs/7/checkpoint_5000: Permission denied
"""

COMPILE_VMEM = """\
jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem \
while allocating on stack for %fusion.42 = bf16[1024,4096]{1,0} fusion(%p0, %p1)
"""

COMPILE_RETCHECK = """\
jaxlib.xla_extension.XlaRuntimeError: INTERNAL: RET_CHECK failure (xla/service/spmd/\
spmd_partitioner.cc:1200) sharding.IsTileMaximal()
"""

NAN_TF = (
    STEPS
    + """\
tensorflow.python.framework.errors_impl.InvalidArgumentError: Loss became invalid : Tensor had NaN \
values
\t [[{{node CheckNumerics}}]]
"""
)

NAN_KERAS = """\
812/1000 [=======================>......] - ETA: 3s - loss: 0.4123
Batch 813: Invalid loss, terminating training
"""

UNKNOWN = """\
I0221 12:00:00.000000 140001 main.py:12] starting
Traceback (most recent call last):
  File "/home/me/main.py", line 20, in <module>
    cfg = load(cfg_path)
KeyError: 'learning_rate'
"""

# (fixture, category, a piece of the evidence line)
CASES = [
    (OOM_JAX, "oom", "memory space hbm"),
    (OOM_TF_RUNTIME, "oom", "That was not possible"),
    (DYNAMIC_TF, "dynamic_shape", "fixed size for dimension 0"),
    (DYNAMIC_JAX, "dynamic_shape", "boolean indices must be concrete"),
    (UNSUPPORTED_OP_TF, "unsupported_op", "ImageProjectiveTransformV3"),
    (UNSUPPORTED_OP_JAX, "unsupported_op", "my_custom_call"),
    (UNSUPPORTED_DTYPE_TF, "unsupported_dtype", "not a supported TPU infeed type"),
    (UNSUPPORTED_DTYPE_JAX, "unsupported_dtype", "Element type F64"),
    (CONNECTION_TF, "connection_loss", "Socket closed"),
    (CONNECTION_JAX, "connection_loss", "heartbeat timeout"),
    (LOCAL_FS, "local_filesystem", "scheme '[local]'"),
    (STRATEGY, "strategy_scope", "optimizer slot variable"),
    (INPUT, "input_pipeline", "End of sequence"),
    (CHECKPOINT, "checkpoint", "not found in checkpoint"),
    (CHECKPOINT_PERMISSION, "checkpoint", "Permission denied"),
    (COMPILE_VMEM, "compile_error", "memory space vmem"),
    (COMPILE_RETCHECK, "compile_error", "RET_CHECK failure"),
    (NAN_TF, "nan_inf", "Tensor had NaN"),
    (NAN_KERAS, "nan_inf", "Invalid loss"),
]
