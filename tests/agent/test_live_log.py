"""The live log: the sidecar streams the job's output lines through the spool, the server keeps
them per host, filters and searches them, and the error card points at its line."""

from __future__ import annotations

from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token
from tests.helpers import api, wait_for_job

SCRIPT = """
import sys
for i in range(1, 301):
    print(f"step {i} loss {1 / i:.4f}", flush=True)
print("W1123 12:00:00.000 data.cc:12] shard 3 is slow", file=sys.stderr, flush=True)
print("<b>not markup</b>", flush=True)
raise ValueError("the widget count went negative")
"""


def test_the_jobs_output_is_stored_per_host_filtered_searched_and_linked_from_its_card(
    live_server, sessions, spool_dir, tmp_path
):
    token = make_token(sessions)
    proc = sidecar(live_server.url, token, "chatty", SCRIPT, tmp_path, "--no-tpu-metrics")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err.decode()[-2000:]
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "chatty", "failed")
        url = f"/api/v1/jobs/{job['id']}/log"
        everything = c.get(url, params={"limit": 5000}).json()
        errors = c.get(url, params={"level": "error"}).json()["lines"]
        warnings = c.get(url, params={"level": "warning"}).json()["lines"]
        found = c.get(url, params={"q": "LOSS 0.0100"}).json()["lines"]
        newer = c.get(url, params={"after": everything["lines"][-3]["id"]}).json()["lines"]
        page = c.get(f"/jobs/{job['id']}", params={"format": "json"}).json()
        (card,) = page["error_cards"]
        around = c.get(url, params={"host": 0, "around": card["log_line"]}).json()["lines"]
        html = c.get(f"/fragments/jobs/{job['id']}/log").text
    lines = everything["lines"]
    assert everything["hosts"] == [0]
    assert [ln["line"] for ln in lines] == list(range(1, len(lines) + 1))  # none lost, in order
    assert lines[0]["text"] == "step 1 loss 1.0000" and lines[0]["stream"] == "stdout"
    assert any(ln["text"].endswith("shard 3 is slow") and ln["stream"] == "stderr" for ln in lines)
    assert [ln["text"] for ln in found] == ["step 100 loss 0.0100"]
    assert {ln["level"] for ln in errors} == {"error"}
    assert any(ln["text"].startswith("ValueError: the widget count") for ln in errors)
    assert {ln["level"] for ln in warnings} == {"error", "warning"}
    assert len(newer) == 2
    assert card["log_line"] >= 303
    assert any(ln["text"].startswith("ValueError") for ln in around)
    assert "&lt;b&gt;not markup&lt;/b&gt;" in html and "<b>not markup" not in html
