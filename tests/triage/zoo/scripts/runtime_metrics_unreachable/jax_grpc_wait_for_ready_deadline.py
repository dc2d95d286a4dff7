"""A monitoring thread waits for the TPU metrics service with wait_for_ready and a short deadline.

label: connection_loss
family: runtime_metrics_unreachable
"""

import grpc

channel = grpc.insecure_channel("localhost:8431")
call = channel.unary_unary("/tpu.monitoring.runtime.RuntimeMetricService/ListSupportedMetrics")
print(call(b"", timeout=2, wait_for_ready=True))
