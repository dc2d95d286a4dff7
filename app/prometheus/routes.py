"""``GET /metrics``: the Prometheus text format, for a team's existing Prometheus and Grafana.

Scrape it with a read token (``authorization: {credentials: tpw_...}`` in the scrape config); a
token sees its own project's jobs. Under ``--open`` it needs none and shows every project.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from tpuwatch.server.deps import ReaderDep, SessionDep, SettingsDep
from tpuwatch.server.prometheus import service

api = APIRouter(tags=["ops"])


@api.get("/metrics", response_class=Response, responses={200: {"content": {"text/plain": {}}}})
def metrics(principal: ReaderDep, session: SessionDep, settings: SettingsDep):
    """Per-job gauges: status, seconds since the last step, step time, input-bound share, HBM share."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

    from tpuwatch.server.prometheus.collector import JobCollector

    registry = CollectorRegistry(auto_describe=False)
    registry.register(JobCollector(service.job_samples(session, principal, settings)))
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
