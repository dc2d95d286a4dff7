"""Schemathesis against the live server's own OpenAPI schema: no input makes it answer 5xx, and
every refusal is a 4xx that says why.

A bounded run here (``TPUWATCH_FUZZ_EXAMPLES``, default 150 cases each of valid and invalid
input); `make fuzz` runs a larger one. On both databases: PostgreSQL refuses what SQLite takes
(a NUL in a text), so a bound missing from the schema shows there as a 500. The server accepts
every time the schema allows (2000 to 2100), so valid batches with far-off times are stored and
then drawn by the pages the run visits next.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from tests.conftest import start_server
from tpuwatch.server.settings import Settings

T0 = time.time() - 86400  # a day ago: inside the window of times ingest accepts

EXAMPLES = int(os.environ.get("TPUWATCH_FUZZ_EXAMPLES", "150"))


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def fuzz_server(request, tmp_path_factory, sqlite_template):
    path = tmp_path_factory.mktemp("fuzz") / "tpuwatch.db"
    if request.param == "sqlite":
        shutil.copy(sqlite_template, path)
        url = f"sqlite:///{path}"
    else:
        url = request.getfixturevalue("pg_database")
    s = Settings(
        db=url,
        data_dir=path.parent,
        secret_key="k",
        rate_limit_per_second=0,
        auth_failures_per_minute=0,  # the run sends wrong tokens on purpose
        ingest_max_age_days=365 * 30,  # every time the schema allows (2000 to 2100) is stored
        ingest_max_ahead_seconds=100 * 365 * 86400,
    )
    server = start_server(s)
    from tests.conftest import make_token
    from tpuwatch.server.db import make_engine, make_sessionmaker

    engine = make_engine(s.database_url)
    token = make_token(make_sessionmaker(engine), "fuzz")
    engine.dispose()
    import httpx

    batch = {
        "stream": "seed",
        "seq": 0,
        "run": {"run_id": "seed", "job": "seed"},
        "steps": [[1, T0, 0.1, 0.0]],
        "events": [[T0, "error", "RuntimeError: x", None]],
    }
    r = httpx.post(f"{server.url}/api/v1/ingest", json=batch, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200  # job 1 exists, so id-taking routes get past the 404 sometimes
    yield server, token
    server.stop()
    if request.param == "postgresql":
        from tests.conftest import _truncate_all

        _truncate_all(url)


def clear_rejection(ctx, response, case):
    """A 4xx must explain itself: JSON with a ``detail``, or a page (HTML)."""
    if 400 <= response.status_code < 500:
        kind = response.headers.get("content-type", [""])
        kind = kind[0] if isinstance(kind, list) else kind
        if "json" in kind:
            assert "detail" in response.json(), (
                f"{response.status_code} without a detail: {response.text[:200]}"
            )
        else:
            assert "html" in kind, f"{response.status_code} answered as {kind!r}"


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_input_makes_the_server_fail(fuzz_server, mode):
    server, token = fuzz_server
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    seen = set()

    @given(case=schema.as_strategy(mode))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(case):
        seen.add((case.operation.method.upper(), case.operation.path))
        case.call_and_validate(
            base_url=server.url,
            headers={"Authorization": f"Bearer {token}"},
            checks=[not_a_server_error, clear_rejection],
        )

    run()
    assert len(seen) >= 5, seen  # the run reached most operations, not one
