"""The slice's data through the real API: host x bucket matrices, bands over hosts, the hosts paged
and sorted on the server, chips as distributions; the job page switches to it past 16 hosts."""

from __future__ import annotations

from tests.conftest import start_server
from tests.helpers import api
from tests.slice.seed import slice_job, token_and_principal

HOSTS = 40  # hosts 333 and 700 are the seed's slow ones: here host 33 is made slow via SLOW


def test_the_slice_api_answers_matrices_bands_paged_hosts_and_chip_distributions(settings, sessions):
    token, who = token_and_principal(sessions)
    job_id = slice_job(sessions, who, hosts=HOSTS, steps=40, chips=2, slow={33: (2.0, 1.2), 7: (1.8, 0.01)})
    server = start_server(settings)
    try:
        with api(server.url, token) as c:
            data = c.get(f"/api/v1/jobs/{job_id}/slice").json()
            first = c.get(f"/api/v1/jobs/{job_id}/hosts", params={"per_page": 10}).json()
            last = c.get(f"/api/v1/jobs/{job_id}/hosts", params={"per_page": 10, "page": 4}).json()
            by_host = c.get(
                f"/api/v1/jobs/{job_id}/hosts", params={"sort": "host_index", "order": "asc"}
            ).json()
            bad = c.get(f"/api/v1/jobs/{job_id}/hosts", params={"sort": "hostname; drop table jobs"})
            which = c.get(f"/api/v1/jobs/{job_id}/which-host").json()
            html = c.get(f"/jobs/{job_id}").text
            fragment = c.get(f"/jobs/{job_id}/fragments/hosts", params={"page": 2, "per_page": 10}).text
    finally:
        server.stop()
    assert data["hosts"] == list(range(HOSTS)) and data["bucket_steps"] == 16 and data["steps"] == [0, 16, 32]
    assert len(data["step_time"]) == HOSTS and len(data["step_time"][0]) == 3
    # Bucket 0 holds the 30 s compile step: its mean over 16 steps is (30 + 15 x 1) / 16.
    assert data["step_time"][0][0] == 2.8125 and data["step_time"][33][1] == 2.0
    assert data["input_wait"][33][2] == 1.2
    assert data["bands"]["p50"][1] == 1.0 and data["bands"]["max"][1] == 2.0
    assert len(data["hbm"]) == HOSTS * 2 and len(data["duty"]) == HOSTS * 2
    assert 0.5 <= min(data["hbm"]) and max(data["hbm"]) < 1.0
    assert first["total"] == HOSTS and [r["host_index"] for r in first["rows"][:2]] == [33, 7]
    assert first["rows"][0]["bound"] == "input" and first["rows"][1]["bound"] == "compute"
    assert len(last["rows"]) == 10 and {r["host_index"] for r in last["rows"]}.isdisjoint({33, 7})
    assert [r["host_index"] for r in by_host["rows"]] == list(range(25))
    assert bad.status_code == 422
    assert [h["host_index"] for h in which["slowest"]] == [33, 7] and which["stopped_first"] == []
    assert 'id="chart-slice_step_time"' in html and 'id="chart-slice_bands"' in html
    assert 'id="chart-step_time"' not in html  # no line per host
    assert "slowest hosts: 33" in html and 'id="slice-hosts"' in html
    assert fragment.startswith('\n<div id="slice-hosts"') or 'id="slice-hosts"' in fragment
    assert 'data-page="2"' in fragment and "Hosts 11–20 of 40" in fragment
