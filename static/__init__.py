"""CSS, JavaScript and images the pages load, shipped as ``tpuwatch.server.static``."""
