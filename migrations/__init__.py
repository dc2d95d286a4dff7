"""Alembic migrations, shipped as ``tpuwatch.server.migrations`` so an installed server migrates itself."""
