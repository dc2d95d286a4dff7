"""Compilations from JAX itself: every trace, lowering and backend compile, with its duration.

JAX announces each stage of a compilation to the listeners registered through ``jax.monitoring``
(``/jax/core/compile/jaxpr_trace_duration``, ``.../jaxpr_to_mlir_module_duration``,
``.../backend_compile_duration``), naming the function in a ``fun_name`` keyword, and says
``/jax/compilation_cache/cache_hits`` or ``cache_misses`` when the persistent cache is in use. One
backend compile is one compilation: its event carries the function, the three durations, their
sum and the cache outcome. A call that JAX serves from its in-memory cache announces nothing, so
the events count real compilations only.

``tpuwatch.init()`` does this by itself (``watch_jax``): at once when JAX is already imported,
else when it gets imported; a process without JAX never imports it. Example::

    recorder = CompileRecorder(mon).attach()   # what init() does for you
    train_step(batch)                          # -> a ``compile`` event naming ``train_step``
    recorder.detach()
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading
import time

from tpuwatch import log, wire

TRACE = "/jax/core/compile/jaxpr_trace_duration"
LOWER = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE = "/jax/core/compile/backend_compile_duration"
CACHE_HIT = "/jax/compilation_cache/cache_hits"
CACHE_MISS = "/jax/compilation_cache/cache_misses"
MAX_EVENTS = 5000  # compile events one process sends; a storm beyond that is counted, not sent
MAX_PENDING = 256  # traces of inner functions that never compile on their own are forgotten


def function_name(fun_name: object) -> str:
    """The user's name of what JAX compiled: ``jit(train_step)`` -> ``train_step``.

    >>> function_name("jit(train_step)"), function_name("pmap(f)"), function_name("loss"), function_name(None)
    ('train_step', 'f', 'loss', '?')
    """
    name = str(fun_name) if fun_name else "?"
    head, sep, rest = name.partition("(")
    if sep and rest.endswith(")") and head.isidentifier():
        name = rest[:-1]
    return name[:200] or "?"


class CompileRecorder:
    """Listens to ``jax.monitoring`` and records one ``compile`` event per backend compile.

    The listeners run on the thread that compiles (the training thread); their cost is a dict
    update and a tuple on the monitor's event queue, next to a compile of milliseconds at least.
    """

    def __init__(self, monitor, max_events: int = MAX_EVENTS) -> None:
        self.monitor = monitor
        self.max_events = max_events
        self.recorded = 0
        self.skipped = 0
        self._local = threading.local()
        self._monitoring = None
        self.hook: _AfterImport | None = None  # set by watch_jax while JAX is not imported yet

    def attach(self, monitoring=None) -> CompileRecorder:
        """Register with ``jax.monitoring`` (imported here: call it where JAX is in use)."""
        if monitoring is None:
            from jax import monitoring
        monitoring.register_event_duration_secs_listener(self.on_duration)
        monitoring.register_event_listener(self.on_event)
        self._monitoring = monitoring
        return self

    def detach(self) -> None:
        """Stop recording (the monitor closes); a pending import hook goes too."""
        if self.hook is not None:
            self.hook.remove()
        m, self._monitoring = self._monitoring, None
        if m is None:
            return
        for unregister, fn in (
            (getattr(m, "unregister_event_duration_listener", None), self.on_duration),
            (getattr(m, "unregister_event_listener", None), self.on_event),
        ):
            try:
                if unregister is not None:
                    unregister(fn)
            except Exception:  # already gone (jax.monitoring.clear_event_listeners)
                pass

    def _pending(self) -> dict:
        pending = getattr(self._local, "pending", None)
        if pending is None:
            pending = self._local.pending = {}
        return pending

    def on_event(self, event: str, **kwargs) -> None:
        if event == CACHE_HIT:
            self._local.cache = "hit"
        elif event == CACHE_MISS:
            self._local.cache = "miss"

    def on_duration(self, event: str, duration: float, **kwargs) -> None:
        try:
            if event == COMPILE:
                self._compiled(function_name(kwargs.get("fun_name")), float(duration))
            elif event in (TRACE, LOWER):
                pending = self._pending()
                if len(pending) > MAX_PENDING:
                    pending.clear()
                stages = pending.setdefault(function_name(kwargs.get("fun_name")), [0.0, 0.0])
                stages[0 if event == TRACE else 1] += float(duration)
        except Exception as exc:  # a listener must never raise into JAX (and so into training)
            log.warn_once("jax-compiles", f"jax compile listener: {type(exc).__name__}: {exc}")

    def _compiled(self, function: str, compile_s: float) -> None:
        trace_s, lower_s = self._pending().pop(function, (0.0, 0.0))
        cache = getattr(self._local, "cache", None)
        self._local.cache = None
        if self.recorded >= self.max_events:
            self.skipped += 1
            log.warn_once(
                "jax-compiles-cap",
                f"more than {self.max_events} compilations in this process: later ones are counted, "
                "not sent (a recompilation storm: look at the job page's compilations)",
            )
            return
        self.recorded += 1
        total = trace_s + lower_s + compile_s
        data = {
            "function": function,
            "framework": "jax",
            "duration": round(total, 6),
            "trace_s": round(trace_s, 6),
            "lower_s": round(lower_s, 6),
            "compile_s": round(compile_s, 6),
            "step": self.monitor._last_step + 1,  # the step it holds up (or the first)
        }
        if cache:
            data["cache"] = cache
        self.monitor.event_at(time.time(), wire.Kind.COMPILE, f"compiled {function} in {total:.3f} s", **data)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``callback`` once, right after the module ``name`` has been imported by anyone."""

    def __init__(self, name: str, callback) -> None:
        self.name = name
        self.callback = callback
        self._finding = False

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name or self._finding:
            return None
        self._finding = True
        try:
            spec = importlib.util.find_spec(fullname)  # the finders after us
        finally:
            self._finding = False
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader, self)
        return spec

    def remove(self) -> None:
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass

    def fire(self) -> None:
        self.remove()
        try:
            self.callback()
        except Exception as exc:
            log.warn_once("jax-compiles", f"jax compile listener: {type(exc).__name__}: {exc}")


class _Loader(importlib.abc.Loader):
    def __init__(self, inner, hook: _AfterImport) -> None:
        self._inner = inner
        self._hook = hook

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module) -> None:
        self._inner.exec_module(module)
        self._hook.fire()

    def __getattr__(self, name):  # resource readers and the like: the real loader's
        return getattr(self._inner, name)


def watch_jax(monitor) -> CompileRecorder:
    """Record ``monitor``'s compilations from JAX: now if JAX is imported, else once it is.
    Never imports JAX itself; never raises."""
    recorder = CompileRecorder(monitor)

    def attach() -> None:
        recorder.attach()

    try:
        if "jax" in sys.modules:
            attach()
        else:
            recorder.hook = _AfterImport("jax", attach)
            sys.meta_path.insert(0, recorder.hook)
    except Exception as exc:
        log.warn_once("jax-compiles", f"jax compile listener: {type(exc).__name__}: {exc}")
    return recorder
