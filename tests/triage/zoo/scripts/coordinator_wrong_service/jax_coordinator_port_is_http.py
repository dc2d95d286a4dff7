"""coordinator_address points at the port of a plain HTTP server (the dashboard) instead of the coordinator.

label: connection_loss
family: coordinator_wrong_service
"""

import http.server
import threading

import jax

dashboard = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
threading.Thread(target=dashboard.serve_forever, daemon=True).start()
port = dashboard.server_address[1]

jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=1, initialization_timeout=5)
print(jax.devices())
