"""Every free-form field of a batch has a limit, and no text may hold a NUL.

The review's cases: a 10 MB event ``data`` and a 10 MB run ``attrs`` were accepted and served back
(the 256 KiB message limit went around through them); NUL characters in names were accepted, which
PostgreSQL cannot store.
"""

from __future__ import annotations

import time

import pytest

from tests.conftest import make_token
from tests.helpers import api
from tpuwatch import wire

BIG = "x" * (10 * 1024 * 1024)


def _batch(**parts) -> dict:
    now = time.time()
    body = {"stream": "s", "seq": 0, "run": {"run_id": "r", "job": "j"}, "steps": [[1, now, 0.1, 0.0]]}
    body.update(parts)
    return body


@pytest.mark.parametrize("where", ["data", "attrs"])
def test_ten_megabytes_of_event_data_or_run_attrs_are_refused(live_server, sessions, where):
    token = make_token(sessions)
    if where == "data":
        body = _batch(events=[[time.time(), "note", "", {"blob": BIG}]])
    else:
        body = _batch(run={"run_id": "r", "job": "j", "attrs": {"blob": BIG}})
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", json=body)
        assert r.status_code == 422, r.text[:300]
        assert "the limit is" in r.text
        assert c.get("/api/v1/jobs").json()["jobs"] == []


def test_event_data_and_attrs_within_their_limits_are_stored_and_served_back(live_server, sessions):
    token = make_token(sessions)
    data = {"blob": "d" * (wire.MAX_DATA_BYTES - 100)}
    attrs = {"blob": "a" * (wire.MAX_ATTRS_BYTES - 100)}
    body = _batch(run={"run_id": "r", "job": "j", "attrs": attrs}, events=[[time.time(), "note", "", data]])
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", json=body)
        assert r.status_code == 200, r.text[:300]
        [event] = c.get(f"/api/v1/jobs/{r.json()['job_id']}/events").json()["events"]
    assert event["data"] == data


NUL_PLACES = ["job", "run_id", "stream", "kind", "message", "metric", "data value", "data key", "attrs"]


@pytest.mark.parametrize("where", NUL_PLACES)
def test_a_nul_anywhere_in_a_batch_is_a_422_on_both_databases(live_server, sessions, where):
    token = make_token(sessions)
    now, nul = time.time(), "resnet\x00evil"
    body = _batch()
    if where in ("job", "run_id"):
        body["run"][where] = nul
    elif where == "stream":
        body["stream"] = nul
    elif where == "kind":
        body["events"] = [[now, "err\x00", "x", None]]
    elif where == "message":
        body["events"] = [[now, "error", nul, None]]
    elif where == "metric":
        body["metrics"] = [[now, nul, 0, 1.0]]
    elif where == "data value":
        body["events"] = [[now, "note", "", {"path": nul}]]
    elif where == "data key":
        body["events"] = [[now, "note", "", {nul: 1}]]
    else:
        body["run"]["attrs"] = {"hostname": nul}
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", json=body)
        assert r.status_code == 422, r.text
        assert "NUL" in r.text or "pattern" in r.text
        assert c.get("/api/v1/jobs").json()["jobs"] == []


@pytest.mark.parametrize("path", ["/api/v1/jobs?name=a%00b", "/api/v1/overview?name=a%00b", "/?name=a%00b"])
def test_a_nul_in_a_search_is_a_client_error_not_a_500(live_server, sessions, path):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        assert c.post("/api/v1/ingest", json=_batch()).status_code == 200
        r = c.get(path)
    assert r.status_code in (200, 422), (r.status_code, r.text[:200])


def test_a_nan_loss_in_event_data_is_kept_as_text_on_both_databases(live_server, sessions):
    """Keras logs a NaN loss in an epoch's data; PostgreSQL's JSON has no NaN: it arrives as "NaN"."""
    token = make_token(sessions)
    raw = (
        '{"stream":"s","seq":0,"run":{"run_id":"r","job":"j"},'
        f'"events":[[{time.time()},"epoch","",{{"logs":{{"loss":NaN,"acc":Infinity,"lr":-Infinity}}}}]]}}'
    )
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 200, r.text
        [event] = c.get(f"/api/v1/jobs/{r.json()['job_id']}/events").json()["events"]
    assert event["data"] == {"logs": {"loss": "NaN", "acc": "Infinity", "lr": "-Infinity"}}
