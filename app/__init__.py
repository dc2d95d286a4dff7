"""tpuwatch server. Nothing here runs at import time; see :func:`app.main.create_app`."""
