"""Serving the pages' static files small: precompressed (brotli, gzip) once per machine, and every
other response compressed as it goes (``install``)."""
