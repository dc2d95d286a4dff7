"""Project isolation on every endpoint: a token of project A never sees or touches project B.

The routes are enumerated from the app itself, so an endpoint added later without a probe here
fails ``test_every_route_has_an_isolation_probe`` until someone says how to test it.
"""

from __future__ import annotations

import re

from fastapi.routing import APIRoute

from tests.helpers import api
from tpuwatch.server.main import create_app

# Routes that hold no project data at all (assets, liveness, the login form itself).
PUBLIC = {
    ("GET", "/healthz"),
    ("GET", "/static/vendor/plotly.min.js"),
    ("GET", "/login"),
    ("POST", "/login"),
    ("POST", "/logout"),
}
# Path parameters we know how to point at the other project's data.
PROBED_PARAMS = {"job_id": "job_id", "alert_id": "alert_id", "channel_id": "channel_id"}
# Bodies that make a write route do real work (not just fail validation).
BODIES = {
    ("POST", "/api/v1/triage"): {"json": {"text": "RuntimeError: boom\n"}},
    ("POST", "/triage"): {"data": {"text": "RuntimeError: boom\n"}},
}


def http_routes(app) -> list[tuple[str, str]]:
    """Every (method, path) the app answers, included routers flattened (FastAPI >= 0.120 keeps
    them as included-router objects in ``app.routes``)."""
    out = []
    for route in app.routes:
        if isinstance(route, APIRoute):
            out.extend((m, route.path) for m in route.methods - {"HEAD"})
        elif hasattr(route, "effective_route_contexts"):
            for ctx in route.effective_route_contexts():
                if isinstance(ctx.original_route, APIRoute):
                    out.extend((m, ctx.path) for m in ctx.original_route.methods - {"HEAD"})
    return sorted(set(out))


def _routes(settings) -> list[tuple[str, str]]:
    return http_routes(create_app(settings))


def test_every_route_has_an_isolation_probe(settings):
    assert ("POST", "/api/v1/ingest") in _routes(settings)  # the walk sees included routers
    missing = []
    for method, path in _routes(settings):
        if (method, path) in PUBLIC:
            continue
        params = set(re.findall(r"{(\w+)(?::\w+)?}", path))
        if params - PROBED_PARAMS.keys():
            missing.append(f"{method} {path} (parameters {sorted(params - PROBED_PARAMS.keys())})")
    assert not missing, "no isolation probe for: " + "; ".join(missing)


def _fill(path: str, project) -> str:
    """``path`` with its id parameters pointing at ``project``'s job, alert and channel."""
    return re.sub(r"{(\w+)(?::\w+)?}", lambda m: str(getattr(project, PROBED_PARAMS[m.group(1)])), path)


def test_no_route_shows_or_changes_another_projects_data(settings, two_projects):
    a, b = two_projects.a, two_projects.b
    checked = 0
    with api(two_projects.url, a.token) as c:
        for method, path in _routes(settings):
            if (method, path) in PUBLIC:
                continue
            kwargs = BODIES.get((method, path), {})
            if "{" in path:
                # Sanity: the probe reaches the route (A's own data is found), so a 404 below means isolation.
                own = c.request(method, _fill(path, a), **kwargs)
                assert own.status_code != 404 or method != "GET", f"{method} {path}: own data not found"
                theirs = c.request(method, _fill(path, b), **kwargs)
                assert theirs.status_code in (403, 404), f"{method} {path}: {theirs.status_code} for B's data"
            else:
                theirs = c.request(method, path, **kwargs)
                assert theirs.status_code < 500, f"{method} {path}: {theirs.status_code}"
            for marker in (b.secret, b.job, b.run_id):
                assert marker not in theirs.text, f"{method} {path} shows project B's {marker!r}"
            checked += 1
    assert checked >= 8
    with api(two_projects.url, b.token) as c:  # B's data came through untouched
        alert = c.get(f"/api/v1/alerts/{b.alert_id}").json()
        assert alert["acked_at"] is None and alert["silenced_until"] is None, alert
        assert b.channel_id in [ch["id"] for ch in c.get("/api/v1/alerts/channels").json()["channels"]]


def test_a_batch_naming_another_projects_run_lands_in_the_senders_project(two_projects):
    a, b = two_projects.a, two_projects.b
    from tests.security.conftest import batch

    with api(two_projects.url, a.token) as c:
        r = c.post("/api/v1/ingest", json=batch(b.run_id, b.job, "RuntimeError: planted", seq=99))
        assert r.status_code == 200
        assert r.json()["job_id"] != b.job_id
    with api(two_projects.url, b.token) as c:
        events = c.get(f"/api/v1/jobs/{b.job_id}/events").json()["events"]
        assert all("planted" not in e["message"] for e in events)
        assert c.get(f"/api/v1/jobs/{b.job_id}").json()["steps"] == 5
