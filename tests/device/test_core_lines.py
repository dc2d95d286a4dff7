"""The cores' sentences read well for 4 hosts and for 4,096: the odd hosts named (a few by number,
the rest counted), the op the majority waits in, the Python frame beside the first odd host."""

from __future__ import annotations

from tpuwatch.server.device.cores import frame_words, group_hosts, lines

WAIT = {"program": "9a1f0733c0de", "launch": 12, "hlo": "all-reduce.3", "queued": 1, "type": "TENSOR_CORE"}
IDLE = {"program": "", "launch": 12, "hlo": "", "queued": 0, "type": "TENSOR_CORE"}
FUSION = {"program": "9a1f0733c0de", "launch": 12, "hlo": "fusion.88", "queued": 1, "type": "TENSOR_CORE"}
OLD = {"program": "77aa0733c0de", "launch": 11, "hlo": "all-gather.1", "queued": 1, "type": "TENSOR_CORE"}


def _states(hosts: int, odd: dict[int, dict], chips: int = 4) -> dict[int, list[dict]]:
    return {h: [dict(odd.get(h, WAIT), core=c) for c in range(chips)] for h in range(hosts)}


def test_four_hosts_one_idle():
    stacks = {2: 'File "/job/data.py", line 7 in __next__'}
    said = lines(group_hosts(_states(4, {2: IDLE})), hosts=4, stacks=stacks)
    assert said == [
        "host 2: cores idle, queue empty, Python in `__next__` (data.py:7); 3 hosts wait in `all-reduce.3`"
    ]


def test_four_hosts_split_two_and_two_names_no_odd_host():
    said = lines(group_hosts(_states(4, {0: FUSION, 1: FUSION})), hosts=4)
    assert said == ["hosts split by place: hosts 0, 1 (2): in `fusion.88`; hosts 2, 3 (2): in `all-reduce.3`"]


def test_4096_hosts_with_three_kinds_of_odd_hosts_stay_a_few_lines():
    odd = {17: IDLE, 900: IDLE, **{h: FUSION for h in range(2000, 2012)}, 4095: OLD}
    said = lines(group_hosts(_states(4096, odd)), hosts=4096)
    assert said == [
        "hosts 2000, 2001, 2002, 2003, 2004, 2005, 2006, 2007 and 4 more (12): in `fusion.88`",
        "hosts 17, 900 (2): cores idle, queue empty",
        "host 4095: in `all-gather.1` (program 77aa0733c0de, not 9a1f0733c0de); 4,081 hosts wait in "
        "`all-reduce.3`",
    ]
    assert sum(len(x) for x in said) < 400


def test_hosts_that_sent_nothing_are_counted():
    states = _states(4096, {5: IDLE})
    del states[7], states[8]
    (said,) = lines(group_hosts(states), hosts=4096)
    assert said.startswith("host 5: cores idle, queue empty; 4,093 hosts wait in `all-reduce.3`")
    assert said.endswith("(2 of 4,096 hosts sent no core state)")


def test_py_spy_and_faulthandler_frames_read_alike():
    assert frame_words("next (grain/iterator.py:210)") == "Python in `next` (iterator.py:210)"
    assert frame_words('File "/x/t.py", line 3 in wait ← File "/x/t.py", line 9 in <module>') == (
        "Python in `wait` (t.py:3)"
    )
