"""A prometheus-client collector over the job samples of one scrape.

Series (labels ``project``, ``job``, ``run_id``, ``job_id``):

- ``tpuwatch_job_status{status=...}``: 1 for the job's current status, 0 for the others
- ``tpuwatch_job_seconds_since_last_step``: how long the job has not stepped (the stall signal)
- ``tpuwatch_job_step_time_seconds``: median step time over the job's recent window
- ``tpuwatch_job_input_wait_ratio``: input wait / (step time + input wait) (input-bound share)
- ``tpuwatch_job_steps_per_second``, ``tpuwatch_job_mfu_ratio``: the job page's figures
- ``tpuwatch_job_hbm_used_ratio``: the fullest chip's HBM in use / HBM total
- ``tpuwatch_job_steps_total`` (training steps: the furthest host's), ``tpuwatch_job_errors_total``,
  ``tpuwatch_job_dropped_events_total``,
  ``tpuwatch_job_conflicting_batches_total`` (batch keys delivered again with different content)
- ``tpuwatch_job_device{metric,stat}``, ``tpuwatch_job_device_max{metric,stat}``: every runtime
  metric the hosts' libtpu serves (``metric`` its libtpu name, ``stat`` value for a gauge or p50,
  p90, p99, p999, mean for a distribution), the median over hosts and the greatest host
"""

from __future__ import annotations

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from tpuwatch.server.jobs.status import STATUSES
from tpuwatch.server.prometheus.service import JobSample

LABELS = ["project", "job", "run_id", "job_id"]


class JobCollector(Collector):
    def __init__(self, samples: list[JobSample]) -> None:
        self.samples = samples

    def collect(self):
        status = GaugeMetricFamily(
            "tpuwatch_job_status", "1 for the job's current status", labels=[*LABELS, "status"]
        )
        gauges = {
            "seconds_since_last_step": GaugeMetricFamily(
                "tpuwatch_job_seconds_since_last_step", "seconds since the job's last step", labels=LABELS
            ),
            "step_time": GaugeMetricFamily(
                "tpuwatch_job_step_time_seconds",
                "median step time over the last 2,048 steps (the job page's figure)",
                labels=LABELS,
            ),
            "input_wait_ratio": GaugeMetricFamily(
                "tpuwatch_job_input_wait_ratio",
                "input wait / (step time + input wait) over the same steps",
                labels=LABELS,
            ),
            "steps_per_second": GaugeMetricFamily(
                "tpuwatch_job_steps_per_second",
                "training steps per second now (0 when stalled)",
                labels=LABELS,
            ),
            "mfu_ratio": GaugeMetricFamily(
                "tpuwatch_job_mfu_ratio",
                "model FLOPs / (wall time of a step x peak FLOP/s), input wait included",
                labels=LABELS,
            ),
            "hbm_used_ratio": GaugeMetricFamily(
                "tpuwatch_job_hbm_used_ratio", "HBM in use / HBM total on the fullest chip", labels=LABELS
            ),
        }
        counters = {
            "steps": CounterMetricFamily(
                "tpuwatch_job_steps", "training steps (the furthest host's)", labels=LABELS
            ),
            "errors": CounterMetricFamily("tpuwatch_job_errors", "error events stored", labels=LABELS),
            "dropped_events": CounterMetricFamily(
                "tpuwatch_job_dropped_events", "events the agent had to drop", labels=LABELS
            ),
            "conflicting_batches": CounterMetricFamily(
                "tpuwatch_job_conflicting_batches",
                "batch keys delivered again with different content (the first copy is kept)",
                labels=LABELS,
            ),
        }
        device = GaugeMetricFamily(
            "tpuwatch_job_device",
            "libtpu runtime metric, latest, median over the job's hosts (mean over a host's chips)",
            labels=[*LABELS, "metric", "stat"],
        )
        device_max = GaugeMetricFamily(
            "tpuwatch_job_device_max",
            "libtpu runtime metric, latest, the greatest host (mean over its chips)",
            labels=[*LABELS, "metric", "stat"],
        )
        jobs = GaugeMetricFamily("tpuwatch_jobs", "jobs by status", labels=["status"])
        counts = dict.fromkeys(STATUSES, 0)
        for s in self.samples:
            labels = [s.project, s.name, s.run_id, str(s.job_id)]
            counts[s.status] = counts.get(s.status, 0) + 1
            for name in STATUSES:
                status.add_metric([*labels, name], 1.0 if name == s.status else 0.0)
            for attr, family in gauges.items():
                value = getattr(s, attr)
                if value is not None:
                    family.add_metric(labels, float(value))
            for attr, family in counters.items():
                family.add_metric(labels, float(getattr(s, attr)))
            for metric, stat, p50, top in s.device:
                device.add_metric([*labels, metric, stat], float(p50))
                device_max.add_metric([*labels, metric, stat], float(top))
        for name, n in counts.items():
            jobs.add_metric([name], float(n))
        yield jobs
        yield status
        yield from gauges.values()
        yield from counters.values()
        yield device
        yield device_max
