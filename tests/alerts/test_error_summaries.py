"""Alerts and cards quote the line that says what happened, not the framework's preamble, and
never tpuwatch's own output."""

from __future__ import annotations

import time

from sqlalchemy import select

from tests.alerts.conftest import fast
from tests.conftest import make_token, start_server
from tests.helpers import api
from tests.jobs.seed import post
from tpuwatch.server.alerts.evaluator import Evaluator
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Alert

RESHAPE_LINE = "Input to reshape is a tensor with 16384 values, but the requested shape has 8192"
# What Keras 3 on TensorFlow prints when a Reshape layer gets the wrong batch.
RESHAPE = f"""Traceback (most recent call last):
  File "train.py", line 14, in <module>
    model.fit(x, y, batch_size=64)
  File "/opt/venv/lib/python3.11/site-packages/keras/src/utils/traceback_utils.py", line 122, in error_handler
    raise e.with_traceback(filtered_tb) from None
tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:

Detected at node sequential/reshape/Reshape defined at (most recent call last):
  File "train.py", line 14, in <module>

{RESHAPE_LINE}
\t [[{{{{node sequential/reshape/Reshape}}}}]] [Op:__inference_multi_step_on_iterator_1041]"""
EXCEPTION = "tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:"
UNKNOWN_LINE = "the quux planner returned 3 widgets where 4 were promised"
UNKNOWN = f"""Traceback (most recent call last):
  File "plan.py", line 3, in <module>
    plan()
quux.PlannerFault: Encountered an error while planning:

{UNKNOWN_LINE}"""
OWN = (
    "tpuwatch: metrics: localhost:8431 unavailable: StatusCode.UNAVAILABLE failed to connect to all "
    "addresses; no per-chip HBM or duty-cycle samples"
)


def _failed(c, run_id: str, job: str, message: str, data: dict) -> int:
    t = time.time() - 5
    events = [[t, "error", message, data], [t + 1, "exit", "", {"code": 1, "signal": None}]]
    return post(c, run_id, job, 0, 0, steps=[[1, t - 2, 1.0, 0.0]], events=events)["job_id"]


def test_reshape_error_alert_and_card_quote_the_reshape_line(settings, sessions):
    server = start_server(fast(settings, alerts_enabled=False))
    token = make_token(sessions)
    try:
        with api(server.url, token) as c:
            job_id = _failed(
                c, "reshape-1", "reshape", RESHAPE, {"source": "traceback", "exception": EXCEPTION}
            )
            unknown_id = _failed(c, "unknown-1", "planner", UNKNOWN, {"context": ["planning", OWN]})
            own_id = _failed(c, "own-1", "own-only", OWN, {"context": [OWN]})
            with transaction(sessions) as s:
                Evaluator(fast(settings, lost_after_seconds=1e6)).evaluate(s)
                summaries = dict(s.execute(select(Alert.job_id, Alert.summary)).all())
            pages = {
                j: c.get(f"/jobs/{j}", params={"format": "json"}).json() for j in (job_id, unknown_id, own_id)
            }
    finally:
        server.stop()
    assert RESHAPE_LINE in summaries[job_id]
    assert "Graph execution error" not in summaries[job_id]
    (card,) = pages[job_id]["error_cards"]
    assert card["evidence"] == RESHAPE_LINE

    # An error nobody knows: its card and alert quote the line after the preamble.
    (card,) = pages[unknown_id]["error_cards"]
    assert card["category"] == "unknown" and card["evidence"] == UNKNOWN_LINE
    assert UNKNOWN_LINE in summaries[unknown_id]

    # tpuwatch's own notice is no evidence of a lost TPU connection, in the context or alone.
    for page in pages.values():
        for card in page["error_cards"]:
            assert card["category"] != "connection_loss"
            assert "tpuwatch:" not in card["evidence"] and "8431" not in card["evidence"]
    assert "8431" not in summaries[own_id]
