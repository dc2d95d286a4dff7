"""One alert sender at a time: a PostgreSQL advisory lock, or a file lock beside an SQLite file.

The PostgreSQL lock lives on a dedicated connection (outside the pool): it is held for as long
as that session lives, and the server drops it by itself when the process or its network dies.
Each evaluation checks the connection first; a leader that lost it steps down.
"""

from __future__ import annotations

import logging
import os

from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

log = logging.getLogger("tpuwatch.alerts")

# pg advisory lock keys are bigints; this one spells "tpuwatch alerts" in spirit only.
LOCK_KEY = 0x7470_7761_6C72_7473 & 0x7FFF_FFFF_FFFF_FFFF


class Leadership:
    """``ensure()`` returns True while this process is the one alert sender.

    Example::

        lead = Leadership("sqlite:////var/lib/tpuwatch/tpuwatch.db")
        if lead.ensure():
            evaluate_and_send()
        lead.release()
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.held = False
        self._engine = None
        self._conn = None
        self._fd: int | None = None

    def ensure(self) -> bool:
        try:
            if self.url.startswith("postgresql"):
                return self._ensure_pg()
            return self._ensure_file()
        except Exception as exc:
            log.warning("alert leadership check failed: %s: %s", type(exc).__name__, exc)
            self._drop()
            return False

    def _ensure_pg(self) -> bool:
        if self.held:
            try:
                self._conn.execute(text("SELECT 1"))
                return True
            except Exception:
                log.warning("lost the alert leader's database connection; stepping down")
                self._drop()
        if self._engine is None:
            url = self.url
            if url.startswith("postgresql://"):
                url = "postgresql+psycopg://" + url[len("postgresql://") :]
            self._engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
        if self._conn is None:
            self._conn = self._engine.connect()
        self.held = bool(
            self._conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": LOCK_KEY}).scalar()
        )
        return self.held

    def _ensure_file(self) -> bool:
        if self.held:
            return True
        import fcntl

        path = self.url.split("///", 1)[-1]
        if not path or path == ":memory:":
            self.held = True  # one process owns an in-memory database
            return True
        if self._fd is None:
            self._fd = os.open(path + ".alerts.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        self.held = True
        return True

    def _drop(self) -> None:
        if self.held and self._conn is not None:
            try:
                # Unlock before closing: the server ends a closed session's backend (and frees its
                # locks) a moment later, and a replica asking in that moment would be refused.
                self._conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": LOCK_KEY})
            except Exception:
                pass
        self.held = False
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
            self._conn = None

    def release(self) -> None:
        """Give leadership up (closing the session or file releases the lock)."""
        self._drop()
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
