"""Migration scripts. Alembic skips this file (it loads revisions only)."""
