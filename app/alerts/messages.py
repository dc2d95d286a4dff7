"""The words of an alert: a Slack-compatible webhook body and an email, built from the same text.

Only a resolve message says "resolved"; firing and repeat messages never do, so a receiver (or a
person skimming a channel) can tell them apart by that word alone.
"""

from __future__ import annotations

from dataclasses import dataclass

TITLES = {
    "diverged": "diverged (loss NaN or infinite)",
    "stalled": "stalled",
    "lost": "lost (agent silent)",
    "failed": "failed",
    "preempted": "TPU node preempted",
    "unhealthy": "TPU node unhealthy",
    "slowdown": "slowed down",
    "low_goodput": "goodput under the floor",
    "low_mfu": "MFU under the floor",
    "recompiling": "recompiling again and again",
}
RECOVERY = {
    "diverged": "the job is no longer diverged",
    "stalled": "steps resumed",
    "lost": "its agents report again",
    "failed": "the job is no longer failing",
    "preempted": "the TPU node is back",
    "unhealthy": "the TPU node is healthy again",
    "slowdown": "the step time is back to usual",
    "low_goodput": "goodput is back over the floor",
    "low_mfu": "MFU is back over the floor",
    "straggler": "no host stands out any more",
    "recompiling": "no recompilation for 10 minutes",
}


@dataclass(frozen=True)
class Message:
    subject: str
    text: str
    body: dict  # the JSON a webhook receives


def links(public_url: str, job_id: int, condition: str) -> list[tuple[str, str]]:
    base = public_url.rstrip("/")
    out = [("job page", f"{base}/jobs/{job_id}")]
    if condition in ("failed", "diverged"):
        out.append(("post-mortem", f"{base}/jobs/{job_id}/postmortem"))
    out.append(("alerts", f"{base}/alerts"))
    return out


def build(
    kind: str,
    *,
    project: str,
    job: str,
    job_id: int,
    alert_id: int,
    condition: str,
    summary: str,
    public_url: str,
    since: float | None = None,
    now: float | None = None,
    reason: str = "",
) -> Message:
    """A message of ``kind`` firing | repeat | resolved for one alert (one job: the group)."""
    title = TITLES.get(condition, condition)
    who = f"{project}/{job}"
    if kind == "resolved":
        why = reason or RECOVERY.get(condition, "the condition cleared")
        lasted = f" after {_dur(now - since)}" if since is not None and now is not None else ""
        head = f"[RESOLVED] {who}: {title} resolved{lasted}: {why}"
        detail = ""
    elif kind == "repeat":
        lasted = f" for {_dur(now - since)}" if since is not None and now is not None else ""
        head = f"[STILL FIRING] {who} is {title}{lasted}"
        detail = summary
    else:
        head = f"[FIRING] {who} is {title}"
        detail = summary
    refs = links(public_url, job_id, condition)
    lines = [head]
    if detail:
        lines.append(detail)
    lines.append(" · ".join(f"{label}: {url}" for label, url in refs))
    text = "\n".join(lines)
    mrkdwn = "\n".join([f"*{_md(head)}*", *([_md(detail)] if detail else [])])
    body = {
        "text": text,
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": mrkdwn[:2900]}},
            {
                "type": "context",
                "elements": [
                    {"type": "mrkdwn", "text": " · ".join(f"<{url}|{label}>" for label, url in refs)},
                    {"type": "mrkdwn", "text": f"alert #{alert_id} · tpuwatch"},
                ],
            },
        ],
    }
    subject = head.splitlines()[0][:250]
    return Message(subject=f"tpuwatch {subject}", text=text, body=body)


def _md(s: str) -> str:
    # Slack's mrkdwn treats &, < and > as control characters.
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _dur(s: float) -> str:
    s = max(0.0, s)
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"
