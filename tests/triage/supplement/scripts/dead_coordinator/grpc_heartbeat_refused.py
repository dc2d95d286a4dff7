"""A worker's heartbeat RPC to the coordinator finds nobody listening.

label: connection_loss
family: dead_coordinator
"""

import socket

import grpc

s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
channel = grpc.insecure_channel(f"127.0.0.1:{port}")
channel.unary_unary("/tensorflow.CoordinationService/Heartbeat")(b"", timeout=3)
