"""Reading a ``stacks`` event (the Python stacks the sidecar captured when a job stopped making
progress, from ``py-spy dump`` or ``faulthandler``): its threads, the training program's main
thread first and tpuwatch's own threads (the agent's writer, its sources) last, so a stall opens
on where the program waits, not on the monitor's queue.

>>> text = ('Thread 0x01 (most recent call first):\\n'
...         '  File "/x/tpuwatch/monitor.py", line 80 in _run\\n'
...         '  File "/usr/lib/python3.11/threading.py", line 982 in run\\n'
...         'Current thread 0x02 (most recent call first):\\n'
...         '  File "/usr/lib/python3.11/queue.py", line 171 in get\\n'
...         '  File "train.py", line 12 in <module>\\n')
>>> [(t.name, t.main, t.own) for t in threads(text)]
[('thread 0x02', True, False), ('thread 0x01', False, True)]
>>> threads(text)[0].frames[0]
'File "/usr/lib/python3.11/queue.py", line 171 in get'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FAULTHANDLER = re.compile(r"^(Current thread|Thread) (0x[0-9a-fA-F]+)")
_PY_SPY = re.compile(r'^Thread (\d+)(?: \(([^)]*)\))?(?:: "(.*)")?\s*$')
# tpuwatch's own agent modules: a thread running only these (and the standard library) is ours.
_OWN_FILES = re.compile(r"[/\\](?:tpuwatch|agent)[/\\][\w/\\]*\.py|tpuwatch-")


@dataclass
class Thread:
    name: str
    frames: list[str] = field(default_factory=list)  # innermost first, as both tools print them
    main: bool = False
    own: bool = False  # one of tpuwatch's own threads
    current: bool = False  # faulthandler's "Current thread": the one that took the signal


def threads(text: str) -> list[Thread]:
    """The threads of a stack dump, main first, tpuwatch's own last."""
    found: list[Thread] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        fh = _FAULTHANDLER.match(line)
        spy = None if fh else _PY_SPY.match(line)
        if fh:
            found.append(
                Thread(name=f"thread {fh.group(2).lower()}", current=fh.group(1) == "Current thread")
            )
        elif spy:
            label = spy.group(3) or f"thread {spy.group(1)}"
            found.append(Thread(name=label, main=label == "MainThread", own=label.startswith("tpuwatch")))
        elif found and not line.startswith(("Process ", "Python v")):
            found[-1].frames.append(line)
    for t in found:
        outermost = t.frames[-1] if t.frames else ""
        t.main = t.main or "<module>" in outermost or outermost.startswith("<module>")
        t.own = t.own or (bool(t.frames) and not t.main and any(_OWN_FILES.search(f) for f in t.frames))
    if found and not any(t.main for t in found):
        # No <module> frame (a cut dump, a program run otherwise): the thread that took the
        # signal (the main one, for a signal sent to the process), else one that threading did not
        # start, else the first that is not tpuwatch's.
        mains = [t for t in found if not t.own]
        mains.sort(key=lambda t: (not t.current, any("threading.py" in f for f in t.frames[-1:])))
        if mains:
            mains[0].main = True
    return sorted(found, key=lambda t: (not t.main, t.own))


def main_frames(text: str, frames: int = 3) -> list[str]:
    """The innermost ``frames`` of the main thread (or the first thread that is not tpuwatch's)."""
    found = threads(text)
    return found[0].frames[:frames] if found else []
