"""User text is isolated from the page's own labels for the bidirectional algorithm.

The review's case: a job named with a right-to-left override (U+202E) flipped the labels after it,
so the job page read "NOSJ" and the overview "metrom-tsop". Checked in Chromium, by where each
letter of a label is drawn: left to right, whatever the job is called.
"""

from __future__ import annotations

from tests.conftest import make_token
from tests.helpers import api
from tests.jobs import seed
from tpuwatch.server.db import make_engine, make_sessionmaker

RLO = "\u202e"
NAME = f"{RLO}evil-job"
PROJECT = f"{RLO}team"

LETTERS = """(sel) => {
  const el = document.querySelector(sel);
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const xs = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      if (!node.data[i].trim()) continue;
      const r = document.createRange();
      r.setStart(node, i);
      r.setEnd(node, i + 1);
      xs.push(r.getBoundingClientRect().left);
    }
  }
  return xs;
}"""


def _left_to_right(page, selector: str) -> bool:
    xs = page.evaluate(LETTERS, selector)
    assert len(xs) >= 3, (selector, xs)
    return all(a < b for a, b in zip(xs, xs[1:], strict=False))


def test_a_right_to_left_override_in_a_job_name_leaves_the_labels_around_it_alone(sqlite_server, page):
    engine = make_engine(sqlite_server.settings.database_url)
    token = make_token(make_sessionmaker(engine), project=PROJECT)
    engine.dispose()
    with api(sqlite_server.url, token) as c:
        failed = seed.failed_run(c, job=NAME, hosts=1, n=50)
    page.goto(sqlite_server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_selector("#jobs-table tbody tr")
    assert _left_to_right(page, "#jobs-table a.pm-link"), "post-mortem"
    assert _left_to_right(page, "header.topbar button.link"), "log out"

    page.goto(f"{sqlite_server.url}/jobs/{failed}")
    assert _left_to_right(page, "h1 a.json-link"), "JSON"
    assert _left_to_right(page, "h1 a.button"), "Post-mortem"
    page.goto(f"{sqlite_server.url}/jobs/{failed}/postmortem")
    assert _left_to_right(page, "#export-link"), "Download as one HTML file"
    assert page.title().endswith("tpuwatch") and not page.title().startswith("Post-mortem: " + RLO + "evil")
