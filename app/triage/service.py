"""Triage in the server: classify error events as they arrive, and pasted logs on request."""

from __future__ import annotations

from collections.abc import Mapping

from app.triage.schemas import CardOut, TriageResult

# What the ingest path knows about a job that makes fixes concrete (see engine._tailor).
CONTEXT_KEYS = ("global_batch_size", "replicas", "num_replicas", "hbm_limit")


def triage_text(text: str, context: Mapping | None = None) -> TriageResult:
    from app.triage import classify_text

    cards = [CardOut(**c.to_dict()) for c in classify_text(text, context or {})]
    return TriageResult(cards=cards, category=cards[0].category if cards else "unknown")


def cards_for_error_event(message: str, data: dict | None, context: Mapping | None = None) -> list[dict]:
    """Cards for one error event: its own text first, then the log lines before it if needed."""
    from app.triage import classify_text

    cards = classify_text(message, context or {})
    if not cards and data and isinstance(data.get("context"), list):
        lines = [str(x) for x in data["context"][-40:]]
        cards = classify_text("\n".join([*lines, message]), context or {})
    return [c.to_dict() for c in cards]


def classify_events(events: list[tuple], context: Mapping | None = None) -> list[tuple]:
    """Return the batch's event rows with ``data["cards"]`` filled in for error events."""
    out = []
    for row in events:
        ts, kind, message, data = row
        if kind == "error" and not (data and "cards" in data):
            data = dict(data or {})
            data["cards"] = cards_for_error_event(message, data, context)
        out.append((ts, kind, message, data))
    return out
