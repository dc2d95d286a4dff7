"""Alerts: the JSON API and the /alerts page, both built from service.py."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Form, HTTPException, Query, Request, Response
from fastapi.responses import RedirectResponse

from tpuwatch.server.alerts import service
from tpuwatch.server.alerts.egress import EgressPolicy
from tpuwatch.server.alerts.schemas import (
    MAX_SILENCE_S,
    AlertDetail,
    AlertList,
    ChannelIn,
    ChannelList,
    ChannelOut,
    SilenceIn,
)
from tpuwatch.server.deps import ReaderDep, SessionDep, SettingsDep, ViewerDep
from tpuwatch.server.models import Alert
from tpuwatch.server.web import FormatQ, json_twin, render

api = APIRouter(prefix="/api/v1/alerts", tags=["alerts"])
pages = APIRouter(tags=["pages"])

StateQ = Annotated[str | None, Query(pattern="^(" + "|".join(service.STATES) + ")$")]


def _api_alert(alert_id: int, principal: ReaderDep, session: SessionDep) -> Alert:
    return service.visible_alert(session, principal, alert_id)


def _page_alert(alert_id: int, principal: ViewerDep, session: SessionDep) -> Alert:
    return service.visible_alert(session, principal, alert_id)


AlertDep = Annotated[Alert, Depends(_api_alert)]
PageAlertDep = Annotated[Alert, Depends(_page_alert)]


@api.get("", response_model=AlertList)
def list_alerts(
    principal: ReaderDep,
    session: SessionDep,
    state: StateQ = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
):
    """Alerts of the token's project: open, acknowledged, silenced and resolved (``?state=``)."""
    return service.list_alerts(session, principal, state=state, limit=limit)


@api.get("/channels", response_model=ChannelList)
def list_channels(principal: ReaderDep, session: SessionDep):
    return service.list_channels(session, principal)


@api.post("/channels", response_model=ChannelOut, status_code=201)
def add_channel(body: ChannelIn, principal: ReaderDep, session: SessionDep, settings: SettingsDep):
    """Send this project's alerts to a Slack-compatible webhook or an email address too. Webhooks go
    to public addresses only, unless ``TPUWATCH_ALERT_WEBHOOK_ALLOW`` lists the receiver."""
    policy = EgressPolicy.from_settings(settings)
    return service.add_channel_for(session, principal, body.kind, body.target, body.project, policy)


@api.delete("/channels/{channel_id}", status_code=204)
def remove_channel(channel_id: int, principal: ReaderDep, session: SessionDep):
    if not service.remove_channel(session, principal, channel_id):
        raise HTTPException(404, f"no channel {channel_id} in this project")
    return Response(status_code=204)


@api.get("/{alert_id}", response_model=AlertDetail)
def get_alert(alert: AlertDep, principal: ReaderDep, session: SessionDep):
    """One alert with its history and every message sent for it."""
    return service.alert_detail(session, alert, principal)


@api.post("/{alert_id}/ack", response_model=AlertDetail)
def ack(alert: AlertDep, principal: ReaderDep, session: SessionDep):
    """Acknowledge: repeats stop; a change of condition or the resolve still notify."""
    service.acknowledge(session, principal, alert)
    return service.alert_detail(session, alert, principal)


@api.post("/{alert_id}/silence", response_model=AlertDetail)
def silence(
    alert: AlertDep,
    principal: ReaderDep,
    session: SessionDep,
    settings: SettingsDep,
    body: Annotated[SilenceIn, Body()] = None,
):
    """Send nothing about this alert for ``seconds`` (default one hour; a read-only token may
    silence for at most ``TPUWATCH_VIEWER_MAX_SILENCE_SECONDS``)."""
    seconds = (body or SilenceIn()).seconds
    service.silence(session, principal, alert, seconds, settings.viewer_max_silence_seconds)
    return service.alert_detail(session, alert, principal)


# -- pages --------------------------------------------------------------------------------------


def _back(alert_id: int | None = None) -> RedirectResponse:
    return RedirectResponse(f"/alerts/{alert_id}" if alert_id else "/alerts", status_code=303)


@pages.get("/alerts")
def alerts_page(
    request: Request,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    format: FormatQ = "html",
):
    alerts = service.list_alerts(session, principal).alerts
    channels = service.list_channels(session, principal).channels
    if format == "json":
        return json_twin({"alerts": alerts, "channels": channels})
    groups = {s: [a for a in alerts if a.state == s] for s in service.STATES}
    ctx = {
        "groups": groups,
        "channels": channels,
        "max_silence": service.max_silence(principal, settings.viewer_max_silence_seconds),
    }
    return render(request, "alerts/index.html", ctx, principal=principal)


@pages.get("/alerts/{alert_id}")
def alert_page(
    request: Request, alert: PageAlertDep, principal: ViewerDep, session: SessionDep, format: FormatQ = "html"
):
    detail = service.alert_detail(session, alert, principal)
    if format == "json":
        return json_twin(detail)
    return render(request, "alerts/detail.html", {"alert": detail}, principal=principal)


@pages.post("/alerts/{alert_id}/ack")
def ack_form(alert: PageAlertDep, principal: ViewerDep, session: SessionDep):
    service.acknowledge(session, principal, alert)
    return _back()


@pages.post("/alerts/{alert_id}/silence")
def silence_form(
    alert: PageAlertDep,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    seconds: Annotated[int, Form(ge=0, le=MAX_SILENCE_S)] = 3600,
):
    service.silence(session, principal, alert, seconds, settings.viewer_max_silence_seconds)
    return _back()


@pages.post("/alerts/channels")
def add_channel_form(
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    kind: Annotated[str, Form(pattern="^(webhook|email)$")],
    target: Annotated[str, Form(min_length=3, max_length=1000)],
    project: Annotated[str | None, Form(max_length=100)] = None,
):
    service.add_channel_for(session, principal, kind, target, project, EgressPolicy.from_settings(settings))
    return _back()


@pages.post("/alerts/channels/{channel_id}/delete")
def remove_channel_form(channel_id: int, principal: ViewerDep, session: SessionDep):
    if not service.remove_channel(session, principal, channel_id):
        raise HTTPException(404, f"no channel {channel_id} in this project")
    return _back()
