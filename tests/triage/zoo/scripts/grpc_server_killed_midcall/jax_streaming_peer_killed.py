"""A parameter-server style peer process is killed while the trainer waits on its streaming RPC.

label: connection_loss
family: grpc_server_killed_midcall
source: tensorflow/tensorflow
"""

import os
import signal
import subprocess
import sys
import time
from concurrent import futures

import grpc

if len(sys.argv) > 1:

    def stream(request, context):
        while True:
            yield b"tick"
            time.sleep(0.2)

    server = grpc.server(futures.ThreadPoolExecutor(2))
    handler = grpc.method_handlers_generic_handler(
        "ps.Params", {"Watch": grpc.unary_stream_rpc_method_handler(stream)}
    )
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port("127.0.0.1:50917")
    server.start()
    server.wait_for_termination()
else:
    peer = subprocess.Popen([sys.executable, __file__, "serve"])
    channel = grpc.insecure_channel("127.0.0.1:50917")
    grpc.channel_ready_future(channel).result(timeout=20)
    watch = channel.unary_stream("/ps.Params/Watch")
    for i, _ in enumerate(watch(b"", timeout=30)):
        print("update", i)
        if i == 3:
            os.kill(peer.pid, signal.SIGKILL)
