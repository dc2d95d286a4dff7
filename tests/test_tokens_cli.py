import subprocess
import sys

from tests.helpers import api


def test_token_create_prints_the_token_last_and_it_works_at_once(live_server, settings):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tpuwatch.cli",
            "token",
            "create",
            "--project",
            "vision",
            "--db",
            settings.database_url,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    token = out.stdout.strip().splitlines()[-1]
    assert token.startswith("tpw_")
    with api(live_server.url, token) as c:
        r = c.get("/api/v1/jobs")
    assert r.status_code == 200 and r.json()["jobs"] == []


def test_tokens_are_stored_hashed(sessions):
    from sqlalchemy import select

    from tests.conftest import make_token
    from tpuwatch.server.models import ApiToken

    token = make_token(sessions)
    with sessions() as s:
        stored = s.scalars(select(ApiToken.token_hash)).all()
    assert token not in stored and len(stored[0]) == 64
