"""The tpuwatch server (``pip install 'tpuwatch[server]'``). Nothing here runs at import time; see
:func:`tpuwatch.server.main.create_app`."""
