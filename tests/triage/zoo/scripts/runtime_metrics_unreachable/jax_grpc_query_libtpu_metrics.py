"""The training script polls libtpu's runtime metrics service on localhost:8431, where nothing serves on this host.

label: connection_loss
family: runtime_metrics_unreachable
"""

import grpc

channel = grpc.insecure_channel("127.0.0.1:8431")
try:
    grpc.channel_ready_future(channel).result(timeout=3)
except grpc.FutureTimeoutError:
    pass
stub = channel.unary_unary("/tpu.monitoring.runtime.RuntimeMetricService/GetRuntimeMetric")
print(stub(b"\n\x1ftpu.runtime.hbm.memory.usage.bytes", timeout=3))
