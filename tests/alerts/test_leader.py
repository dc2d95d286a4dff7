"""One sender at a time: the advisory lock (PostgreSQL) or the file lock (SQLite)."""

from __future__ import annotations

from tpuwatch.server.alerts.leader import Leadership


def test_only_one_process_leads_and_another_takes_over_when_it_lets_go(database_url):
    a, b = Leadership(database_url), Leadership(database_url)
    try:
        assert a.ensure() is True
        assert b.ensure() is False
        assert a.ensure() is True  # still held, checked again
        a.release()
        assert b.ensure() is True
        assert a.ensure() is False
    finally:
        a.release()
        b.release()
