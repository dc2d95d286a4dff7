"""What the post-mortem template needs, for the page and for the one-file export.

The export inlines the stylesheet, plotly.js and the chart script, so the file opens offline,
years later, from a ticket or an email. Its inline scripts are pinned by SHA-256 in a CSP (sent
as a header and repeated in a <meta> tag for the saved file), so nothing else in it can run,
whatever a log line holds; log text is escaped as everywhere else.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re

from tpuwatch.server.dashboard import charts
from tpuwatch.server.dashboard.training import merged, training_figure
from tpuwatch.server.goodput import charts as goodput_charts
from tpuwatch.server.postmortem.schemas import PostMortem
from tpuwatch.server.resources import plotly_js_path, resource_dir
from tpuwatch.server.slice import charts as slice_charts


@functools.lru_cache(maxsize=4)
def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def assets() -> dict[str, str]:
    """The inline assets and the CSP that allows exactly those scripts."""
    plotly_js = _read(str(plotly_js_path()))
    charts_js = _read(str(resource_dir("static") / "js" / "charts.js"))
    css = _read(str(resource_dir("static") / "css" / "app.css"))
    csp = (
        f"default-src 'none'; script-src {_sha256(plotly_js)} {_sha256(charts_js)}; "
        "style-src 'unsafe-inline'; img-src data:; font-src data:"
    )
    return {"plotly_js": plotly_js, "charts_js": charts_js, "css": css, "csp": csp}


def figures(data: PostMortem) -> dict[str, str]:
    if data.last_steps_slice is not None:
        bands = slice_charts.bands_figure(data.last_steps_slice)
        bands["layout"]["title"]["text"] = "Last steps: step time over hosts (p50 / p90 / max)"
        out = {
            "last_steps": charts.to_json(bands),
            "last_steps_heatmap": charts.to_json(
                slice_charts.heatmap_figure(data.last_steps_slice, "step_time", "Last steps: step time")
            ),
        }
    else:
        out = {
            "last_steps": charts.to_json(
                charts.step_figure(data.last_steps_series, "step_time", "Last steps")
            )
        }
    out.update(goodput_charts.page_figures(data))
    loss = merged(data.loss)  # train/loss and eval/loss on one chart
    if loss:
        fig = training_figure(loss[0], data.job.id)
        fig["layout"]["title"]["text"] = f"{loss[0].key} before the end"
        out["loss"] = charts.to_json(fig)
    if data.hbm.get("hbm"):
        title = "HBM before the end"
        out["hbm"] = charts.to_json(
            charts.device_figure(data.hbm["hbm"], title, data.hbm.get("hbm_unit", ""))
        )
    return out


def context(data: PostMortem, inline: bool) -> dict:
    from tpuwatch.server.device.service import fmt

    ctx = {"pm": data, "figures": figures(data), "inline": inline, "device_fmt": fmt}
    if inline:
        ctx["assets"] = assets()
    return ctx


def headers(job_id: int, name: str, download: bool) -> dict[str, str]:
    h = {"Content-Security-Policy": assets()["csp"]}
    if download:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:80] or "job"
        h["Content-Disposition"] = f'attachment; filename="postmortem-{job_id}-{slug}.html"'
    return h
