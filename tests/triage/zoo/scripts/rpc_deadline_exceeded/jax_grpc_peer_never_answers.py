"""A gRPC call to a peer whose socket accepts connections but never answers, with a 3 s deadline.

label: connection_loss
family: rpc_deadline_exceeded
source: grpc/grpc
"""

import socket
import threading

import grpc

srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(8)
port = srv.getsockname()[1]
held = []
threading.Thread(target=lambda: [held.append(srv.accept()) for _ in range(8)], daemon=True).start()

channel = grpc.insecure_channel(f"127.0.0.1:{port}")
call = channel.unary_unary("/coordination.Service/Heartbeat")
print(call(b"", timeout=3))
