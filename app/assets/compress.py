"""Compressed copies of the static files, made once and kept in a cache folder keyed by each file's
content: plotly.js is 4.8 MB, 1.47 MB in gzip and 1.11 MB in brotli at its best quality, which
takes ~13 s of CPU, far too long for a request. A background thread started with the server makes
what is missing; until a copy exists the file goes out compressed on the fly (gzip, by the
middleware), so nothing waits for it.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import threading
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger("tpuwatch.assets")

ENCODINGS = ("br", "gzip")  # best first
MIN_BYTES = 512  # smaller files are not worth a copy


def default_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("tpuwatch", appauthor=False)) / "assets"


class Precompressed:
    """The compressed copies of a set of files in ``cache``: ``path(source, encoding)`` is the copy
    when it exists. Files are identified by their content (SHA-256), so a changed file, or another
    plotly version, gets copies of its own."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self._digests: dict[Path, tuple[float, int, str]] = {}
        self._lock = threading.Lock()

    def _digest(self, source: Path) -> str | None:
        try:
            st = source.stat()
        except OSError:
            return None
        with self._lock:
            known = self._digests.get(source)
        if known and known[:2] == (st.st_mtime, st.st_size):
            return known[2]
        h = hashlib.sha256()
        with open(source, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        digest = h.hexdigest()[:32]
        with self._lock:
            self._digests[source] = (st.st_mtime, st.st_size, digest)
        return digest

    def copy_path(self, source: Path, encoding: str) -> Path | None:
        digest = self._digest(source)
        if digest is None:
            return None
        return self.cache / f"{digest}{source.suffix}.{'br' if encoding == 'br' else 'gz'}"

    def path(self, source: Path, encoding: str) -> Path | None:
        """The compressed copy of ``source`` in ``encoding``, or None while there is none."""
        p = self.copy_path(source, encoding)
        return p if p is not None and p.exists() else None

    def make(self, sources: Iterable[Path]) -> int:
        """Write the missing copies (small files first); returns how many were written."""
        made = 0
        for source in sorted(sources, key=lambda p: p.stat().st_size if p.exists() else 0):
            if not source.is_file() or source.stat().st_size < MIN_BYTES:
                continue
            for encoding in ENCODINGS:
                target = self.copy_path(source, encoding)
                if target is None or target.exists():
                    continue
                body = compress(source.read_bytes(), encoding)
                if body is None:
                    continue
                self.cache.mkdir(parents=True, exist_ok=True)
                tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}")
                tmp.write_bytes(body)
                os.replace(tmp, target)  # whole or absent: a reader never sees half a file
                made += 1
        return made

    def start(self, sources: list[Path]) -> threading.Thread:
        """Make the missing copies on a background thread (the server answers meanwhile)."""

        def run() -> None:
            try:
                made = self.make(sources)
                if made:
                    log.info("compressed %d static files into %s", made, self.cache)
            except OSError as exc:  # a read-only cache folder: files go out gzipped on the fly
                log.warning("cannot keep compressed static files in %s: %s", self.cache, exc)

        thread = threading.Thread(target=run, name="tpuwatch-precompress", daemon=True)
        thread.start()
        return thread


def compress(body: bytes, encoding: str) -> bytes | None:
    """``body`` at the encoding's best setting (None for brotli when the module is missing).

    >>> len(compress(b"a" * 1000, "gzip")) < 100
    True
    """
    if encoding == "gzip":
        return gzip.compress(body, compresslevel=9, mtime=0)
    try:
        import brotli
    except ImportError:
        return None
    return brotli.compress(body, quality=11)


def accepted(header: str) -> list[str]:
    """The encodings an ``Accept-Encoding`` header allows, in our order of preference.

    >>> accepted("gzip, deflate, br, zstd"), accepted("gzip;q=0, br"), accepted("")
    (['br', 'gzip'], ['br'], [])
    """
    allowed = set()
    for part in header.lower().split(","):
        name, _, params = part.strip().partition(";")
        q = params.strip()
        if q.startswith("q=") and _zero(q[2:]):
            continue
        allowed.add(name.strip())
    return [e for e in ENCODINGS if e in allowed]


def _zero(text: str) -> bool:
    try:
        return float(text) == 0
    except ValueError:
        return False
