"""Alembic environment: the URL comes from the caller or from tpuwatch's settings."""

from alembic import context

import tpuwatch.server.models  # noqa: F401  (puts every table in Base.metadata)
from tpuwatch.server.db import Base, make_engine

config = context.config
target_metadata = Base.metadata


def _include_name(name, type_, parent_names) -> bool:
    # The day partitions of steps come and go with time (created ahead, dropped by retention):
    # they are data, not schema.
    from tpuwatch.server.series.partitions import is_partition

    return not (type_ == "table" and name and is_partition(name))


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from tpuwatch.server.settings import Settings

    return Settings().database_url


def run_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    engine = make_engine(_url())
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
            include_name=_include_name,
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
