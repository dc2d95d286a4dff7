"""Unknown errors are grouped by template so a recurring new failure is one group."""

from __future__ import annotations

from tpuwatch.server.triage.templates import UnknownGrouper, error_line, template_for

from . import logs


def test_same_new_error_on_many_hosts_is_one_group_with_a_count():
    grouper = UnknownGrouper()
    for host in range(8):
        text = logs.STEPS + (
            f"RuntimeError: slice health check failed on t1v-n-{host:04x}-w-{host} after "
            f"{30 + host} s (code 0x{host:x})\n"
        )
        group = grouper.add(text, source=f"host-{host}")
    other = grouper.add("KeyError: 'learning_rate'\n", source="job-2")
    groups = grouper.groups()
    assert len(groups) == 2
    assert groups[0].count == 8
    assert groups[0].sources == {f"host-{i}" for i in range(8)}
    assert group.key == groups[0].key
    assert other.key != group.key
    assert groups[0].template.startswith("RuntimeError: slice health check failed on")


def test_error_line_is_the_root_exception_of_a_log():
    assert error_line(logs.UNKNOWN) == "KeyError: 'learning_rate'"
    assert error_line("just one line\n") == "just one line"


def test_template_for_masks_numbers_paths_and_addresses():
    key, template = template_for("OSError: cannot open /data/shard-00017.rec on 10.0.0.12:8470 after 3 tries")
    assert template == "OSError: cannot open <PATH> on <IP> after <NUM> tries"
    key2, _ = template_for("OSError: cannot open /data/shard-00099.rec on 10.0.0.99:8470 after 5 tries")
    assert key == key2 and len(key) == 12
