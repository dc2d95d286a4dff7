"""An unknown card still helps: it keeps its evidence line and says which other jobs of the project
met the same unknown error this week (issue 25, point 5), on the job page and its JSON twin."""

from __future__ import annotations

import time

from tests.conftest import make_token
from tests.helpers import api

T0 = time.time() - 3600


def _error(lease: int) -> str:
    return (
        'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n'
        f"FrobnicatorError: shard {lease} lost its lease after {lease + 70} s"
    )


def _job_id(c, name: str) -> int:
    return next(j["id"] for j in c.get("/api/v1/jobs").json()["jobs"] if j["name"] == name)


def test_unknown_card_names_the_other_jobs_with_the_same_unknown_error(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        sent = [
            ("a", _error(17)),
            ("b", _error(18)),
            ("c", _error(19)),
            ("d", "QuuxError: the widget melted"),
        ]
        for i, (run, message) in enumerate(sent):
            body = {
                "stream": f"s{i}",
                "seq": 0,
                "run": {"run_id": run, "job": f"job-{run}"},
                "events": [[T0 + i, "error", message, None]],
            }
            assert c.post("/api/v1/ingest", json=body).status_code < 300
        page = c.get(f"/jobs/{_job_id(c, 'job-a')}", params={"format": "json"}).json()
        html = c.get(f"/jobs/{_job_id(c, 'job-a')}").text
        lonely = c.get(f"/jobs/{_job_id(c, 'job-d')}", params={"format": "json"}).json()
    (card,) = page["error_cards"]
    assert card["category"] == "unknown"
    assert "FrobnicatorError: shard 17 lost its lease" in card["evidence"]
    group = card["unknown_group"]
    assert [j["name"] for j in group["other_jobs"]] == ["job-b", "job-c"]
    assert "FrobnicatorError" in group["template"]
    assert "Seen in 2 other jobs this week" in html and "job-b" in html
    assert lonely["error_cards"][0]["unknown_group"]["other_jobs"] == []


def test_a_classified_card_has_no_unknown_group(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        body = {
            "stream": "s",
            "seq": 0,
            "run": {"run_id": "oom", "job": "job-oom"},
            "events": [
                [
                    T0,
                    "error",
                    "XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm",
                    None,
                ]
            ],
        }
        c.post("/api/v1/ingest", json=body)
        page = c.get(f"/jobs/{_job_id(c, 'job-oom')}", params={"format": "json"}).json()
    assert page["error_cards"][0]["category"] == "oom"
    assert "unknown_group" not in page["error_cards"][0]
