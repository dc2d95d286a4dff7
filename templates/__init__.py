"""The server's Jinja2 pages, shipped inside the package as ``tpuwatch.server.templates``."""
