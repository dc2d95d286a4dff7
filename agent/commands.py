"""`tpuwatch agent run` and `tpuwatch agent sync` (standard library only)."""

from __future__ import annotations

import argparse
import sys

from tpuwatch import config


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agent", help="run a training command under watch, or sync a spool")
    asub = p.add_subparsers(dest="agent_command", metavar="ACTION")
    asub.required = True

    r = asub.add_parser(
        "run",
        help="run CMD and stream what it does to the server",
        usage="tpuwatch agent run [--server URL] [--token T] [--job NAME] [--name RUN] [--group G] "
        "[--host-index N] -- CMD [ARGS...]",
        description="Run CMD as a child: its output passes through unchanged, tracebacks become error "
        "events, heartbeats and the exit code are reported. Exits with CMD's exit code.",
    )
    _connection_args(r)
    r.add_argument("--job", help="job name (default: TPUWATCH_JOB, else the command's name)")
    r.add_argument(
        "--name",
        default=config.env_str("TPUWATCH_NAME"),
        help="this launch's name, shown beside the job's (e.g. 'lr 3e-4, warmup 2k'; default: "
        "TPUWATCH_NAME). The git commit and a digest of the config files beside the script are "
        "added by themselves",
    )
    r.add_argument("--host-index", type=int, help="this worker's index in a multi-host slice (default 0)")
    r.add_argument("--run-id", help="shared by every worker of one launch (default: a new id)")
    r.add_argument("--heartbeat", type=float, default=10.0, help="seconds between heartbeats (default 10)")
    r.add_argument(
        "--group",
        default=config.env_str(config.ENV_GROUP),
        help="the training run this launch is an attempt of: a relaunch that resumes from a checkpoint "
        "gives the same group (default: TPUWATCH_GROUP, else the server groups by project and job name)",
    )
    r.add_argument(
        "--peak-flops",
        type=float,
        default=config.env_float(config.ENV_PEAK_FLOPS),
        help="peak FLOP/s of this host's chips, for MFU where the accelerator type is unknown "
        "(default: TPUWATCH_PEAK_FLOPS; on a TPU VM the server knows it from the accelerator type)",
    )
    _source_args(r)
    r.add_argument("command", nargs=argparse.REMAINDER, help="the training command, after --")
    r.set_defaults(func=_run)

    s = asub.add_parser("sync", help="deliver what a killed agent or a down server left in the spool")
    _connection_args(s)
    s.add_argument("--timeout", type=float, default=60.0, help="seconds to keep trying per run (default 60)")
    s.set_defaults(func=_sync)


def _source_args(r: argparse.ArgumentParser) -> None:
    g = r.add_argument_group("TPU sources")
    g.add_argument(
        "--launch",
        help="a name for this launch, the same on every worker of a slice: the run id becomes "
        "<TPU name>-<launch> so all workers land on one job",
    )
    g.add_argument(
        "--metrics-port", type=int, default=8431, help="libtpu runtime metrics port (default 8431)"
    )
    g.add_argument(
        "--metrics-every", type=float, default=5.0, help="seconds between libtpu metric rounds (default 5)"
    )
    g.add_argument("--no-tpu-metrics", action="store_true", help="do not read libtpu's runtime metrics")
    g.add_argument(
        "--prometheus-port",
        type=int,
        default=9431,
        help="local Prometheus port of Orbax / Grain metrics (default 9431; 0 turns it off)",
    )
    g.add_argument(
        "--prometheus-every", type=float, default=5.0, help="seconds between reads of that port (default 5)"
    )
    g.add_argument(
        "--tpu-api-endpoint",
        help="Cloud TPU API endpoint for node state (default: Google's, with your credentials)",
    )
    g.add_argument(
        "--tpu-node",
        default=config.env_str("TPUWATCH_TPU_NODE"),
        help="projects/P/locations/ZONE/nodes/NAME (default: from the metadata server)",
    )
    g.add_argument(
        "--node-poll", type=float, default=45.0, help="seconds between node state polls; 0 turns it off"
    )
    g.add_argument(
        "--stall-after",
        type=float,
        default=300.0,
        help="take the training process's stacks when no step came for this many seconds, or 20 "
        "typical steps if longer (default 300)",
    )
    g.add_argument("--archive", metavar="gs://BUCKET/PREFIX", help="upload the full log there on exit")
    g.add_argument("--tpu-name", help="override the TPU name the metadata server reports")
    g.add_argument("--zone", help="override the zone")
    g.add_argument("--project", help="override the Google Cloud project")


def _options(args: argparse.Namespace):
    from tpuwatch.sources.runner import SourceOptions

    overrides = {"tpu_name": args.tpu_name, "zone": args.zone, "project": args.project}
    if args.host_index is not None:
        overrides["worker"] = args.host_index
    return SourceOptions(
        tpu_metrics=not args.no_tpu_metrics,
        metrics_port=args.metrics_port,
        metrics_every=max(0.1, args.metrics_every),
        prometheus_port=args.prometheus_port,
        prometheus_every=max(0.1, args.prometheus_every),
        tpu_api_endpoint=args.tpu_api_endpoint,
        tpu_node=args.tpu_node,
        node_poll=args.node_poll,
        archive=args.archive,
        launch=args.launch,
        stall_floor=args.stall_after,
        identity={k: v for k, v in overrides.items() if v not in (None, "")},
    )


def _connection_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--server", default=config.env_str(config.ENV_SERVER), help="server URL (default: TPUWATCH_SERVER)"
    )
    p.add_argument(
        "--token",
        default=config.env_str(config.ENV_TOKEN),
        help="project or ingest token (default: TPUWATCH_TOKEN)",
    )
    p.add_argument(
        "--spool-dir",
        default=None,
        help=f"spool folder (default: TPUWATCH_SPOOL_DIR, else {config.default_spool_dir()})",
    )


def _run(args: argparse.Namespace) -> int:
    from tpuwatch.sidecar import run

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        print(
            "tpuwatch agent run: give the command to run after --, e.g. "
            "tpuwatch agent run --job bert -- python train.py",
            file=sys.stderr,
        )
        return 2
    if args.archive:
        from tpuwatch.sources.archive import parse_gs_url

        try:
            parse_gs_url(args.archive)
        except ValueError as exc:
            print(f"tpuwatch agent run: --archive: {exc}", file=sys.stderr)
            return 2
    options = _options(args)  # without a server, the Monitor says once where the data is kept
    return run(
        command,
        server=args.server,
        token=args.token,
        job=args.job,
        host_index=args.host_index,
        run_id=args.run_id,
        spool_dir=args.spool_dir,
        heartbeat=args.heartbeat,
        options=options,
        group=args.group,
        peak_flops=args.peak_flops,
        name=args.name,
    )


def _sync(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tpuwatch.sync import sync

    base = Path(args.spool_dir) if args.spool_dir else config.default_spool_dir()
    left = sync(base, args.server, args.token, timeout=args.timeout)
    return 1 if left else 0
