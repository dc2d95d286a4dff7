"""Server settings: one pydantic-settings class, read from ``TPUWATCH_*`` variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tpuwatch", appauthor=False))


class Settings(BaseSettings):
    """Every knob of the server. Example: ``Settings(db="sqlite:////tmp/tw.db")``."""

    model_config = SettingsConfigDict(env_prefix="TPUWATCH_", extra="ignore")

    db: str = Field("", description="SQLAlchemy URL; empty means an SQLite file in data_dir")
    data_dir: Path = Field(default_factory=default_data_dir)
    secret_key: str = Field("", description="signs session cookies; generated into data_dir if empty")
    open_access: bool = Field(False, description="pages need no login (demo on loopback only)")
    asset_cache_dir: Path | None = Field(
        None, description="where compressed copies of the static files are kept; empty: the user's cache dir"
    )

    max_body_bytes: int = 16 << 20  # compressed or not, what we read off the socket
    # The front door (security/frontdoor.py, security/connections.py): what a request may cost
    # before it has shown a live token, and how long a slow client may take.
    max_api_body_bytes: int = Field(1 << 20, description="a JSON body of the API other than ingest")
    max_form_bytes: int = Field(64 * 1024, description="a page form's body (CSRF is checked in it)")
    max_header_bytes: int = Field(32 * 1024, description="a request's line and headers together; beyond, 431")
    max_header_count: int = Field(100, description="headers in one request; beyond, 431")
    header_deadline_seconds: float = Field(10.0, gt=0, description="a request's headers arrive within this")
    body_deadline_seconds: float = Field(
        10.0, gt=0, description="a request's whole body arrives within this, or 408"
    )
    max_connections_per_address: int = Field(
        1024, ge=0, description="connections one client address may hold at once (0: no limit); beyond, 503"
    )
    forwarded_allow_ips: str = Field(
        "",
        description="proxies whose X-Forwarded-For is believed (comma-separated); empty: none, so a "
        "client cannot pick the address the throttles key on",
    )
    max_decoded_bytes: int = 64 << 20  # after gunzip
    max_batch_events: int = 50_000
    max_event_message_chars: int = Field(256 * 1024, description="an event's message (at most 256 KiB)")
    ingest_max_age_days: float = Field(
        365.0, description="a time in a batch may lie this far before the server's clock (late spools)"
    )
    ingest_max_ahead_seconds: float = Field(
        86400.0, description="and this far after it (the sending host's clock runs fast)"
    )

    lost_after_seconds: float = 90.0  # no word from any host for this long: lost
    stall_floor_seconds: float = 120.0
    first_step_grace_seconds: float = 1800.0

    # Alerts (app/alerts): one leader evaluates every alert_eval_seconds and delivers.
    alerts_enabled: bool = True
    alert_eval_seconds: float = 5.0
    alert_repeat_seconds: float = 4 * 3600.0  # as Alertmanager's default repeat_interval
    long_phase_grace_seconds: float = 1800.0  # a reported phase (checkpoint save) may take this long
    # Slowdown: the median step interval over the last window above max(ratio x the job's usual
    # interval, usual + k x its MAD), with at least min_steps steps in the window.
    slowdown_ratio: float = 1.5
    slowdown_window_seconds: float = 60.0
    slowdown_min_steps: int = 8
    slowdown_mad_k: float = 6.0
    # Straggler (app/device/straggler.py): one host's cores the busiest, or its input wait the
    # longest, over the last window, for at least persist seconds.
    straggler_window_seconds: float = 120.0
    straggler_persist_seconds: float = 120.0
    alert_webhook_url: str = Field("", description="server-wide Slack-compatible webhook for every project")
    alert_webhook_allow: str = Field(
        "",
        description="internal webhook receivers the server may post to: host names, addresses or "
        "networks, comma-separated (webhooks go to public addresses only otherwise)",
    )
    alert_email_to: str = Field("", description="server-wide alert address(es), comma-separated")
    alert_delivery_timeout: float = 5.0
    alert_project_max_per_minute: int = Field(
        20, ge=0, description="notifications one project may start a minute; the rest become one summary"
    )
    smtp_host: str = ""
    smtp_port: int = 25
    smtp_from: str = "tpuwatch@localhost"
    smtp_starttls: bool = False
    smtp_user: str = ""
    smtp_password: str = ""
    viewer_max_silence_seconds: int = Field(
        4 * 3600, description="read-only tokens may acknowledge and silence for at most this long"
    )
    public_url: str = Field("http://127.0.0.1:8000", description="base of the links in alert messages")

    jobs_page_size: int = 200
    sqlite_quick_check: bool = Field(
        True,
        description="check the SQLite file at start (PRAGMA quick_check reads all of it: seconds per GB)",
    )

    # Page sessions (app/auth): kept on the server; logout and token revocation end them.
    session_idle_seconds: float = Field(12 * 3600.0, description="a page session unused this long ends")
    session_max_seconds: float = Field(7 * 86400.0, description="and any session ends this long after login")
    secure_cookies: bool = Field(
        False, description="always mark the session cookie Secure (it is anyway when served over TLS)"
    )
    # Failed authentication (wrong bearer tokens, failed logins), per client address and process.
    auth_failures_per_minute: float = Field(10.0, description="failures forgiven per minute; 0 turns it off")
    auth_failure_burst: int = Field(20, description="failures allowed before a client must wait")

    # Per client (a token and the agent host it names, or a token, or a client address), per worker
    # process; 0 turns the limit off. One host of a slice is one client: a runaway agent is slowed.
    rate_limit_per_second: float = 50.0
    rate_limit_burst: int = 200
    # Per token, over all its hosts: generous, so that a slice of thousands of hosts is not one client.
    rate_limit_token_per_second: float = Field(
        2000.0, description="requests/s one token may make over all its hosts; 0 turns it off"
    )
    rate_limit_token_burst: int = 4000

    # Admission and pools (app/ops/admission.py): requests beyond these wait briefly, then get 503
    # with Retry-After, before they take a database connection. Ingest gets its own share so that
    # pages, the API, /healthz and the alert loop are never starved by agents.
    # Four groups' worth (writer.py stores up to 64 batches a group): with one, the loop checked the
    # next group's bodies only once the writer had stored the last, and a burst waited twice as long.
    ingest_max_in_flight: int = Field(
        256, description="batches in flight at once per process (the writer stores them in groups)"
    )
    # A slice's hosts start and end together: a 1,024-host job's first (and last) batches arrive
    # within a second. Waiting costs no thread and no connection, so the gate lets such a burst
    # wait rather than refuse it, for less than the agent's 5 s request timeout.
    ingest_max_waiting: int = Field(2048, description="batches waiting for a slot; beyond, 503 at once")
    ingest_wait_seconds: float = Field(3.0, description="how long a batch waits for a slot before 503")
    ingest_cpu_budget: float = Field(
        0.5,
        gt=0,
        le=8,
        description="share of one core agents' batches may take: the server asks each host of a big "
        "slice to send less often to keep within it (app/ops/pacing.py)",
    )
    ingest_max_pace_seconds: float = Field(
        30.0, ge=1, le=600, description="the longest interval between batches the server asks of a host"
    )
    ingest_threads: int = Field(4, ge=1, description="worker threads checking ingest bodies at once")
    ingest_writers: int = Field(
        1,
        ge=1,
        le=16,
        description="threads storing groups of batches side by side (PostgreSQL; SQLite has one)",
    )
    ingest_store_timeout_seconds: float = Field(
        30.0, gt=0, description="how long a batch may wait to be stored before its request gets 503"
    )
    reads_max_in_flight: int = Field(12, description="other database requests at once per process")
    reads_max_waiting: int = 256
    reads_wait_seconds: float = 10.0
    threadpool_size: int = Field(40, description="worker threads for blocking work (anyio's limiter)")
    db_pool_size: int = 10
    db_max_overflow: int = 20
    db_pool_timeout: float = Field(3.0, description="seconds to wait for a pooled connection, then 503")
    # Every agent host keeps one connection open between batches (keep_alive_seconds): a 4,096-host
    # job on one process holds 4,096 idle connections, and past this uvicorn answers 503.
    max_connections: int = Field(8192, description="open connections and requests per process; beyond, 503")
    # An agent keeps one connection and sends a batch every pace interval (up to the 60 s it accepts
    # from the server, agent/sender.py). Closed after uvicorn's 5 s, a paced host opened a new one
    # for nearly every batch: with 4,096 hosts a fifth of the server's CPU went on connections.
    keep_alive_seconds: float = Field(
        65.0, gt=0, description="an idle kept-alive connection is closed after this long"
    )
    graceful_shutdown_seconds: float = Field(
        5.0, description="on SIGTERM, requests in flight get this long before they are cut off"
    )

    @property
    def database_url(self) -> str:
        if self.db:
            return self.db
        return f"sqlite:///{self.data_dir / 'tpuwatch.db'}"

    def resolved_secret_key(self) -> str:
        if self.secret_key:
            return self.secret_key
        import secrets

        path = self.data_dir / "secret_key"
        try:
            return path.read_text().strip()
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            key = secrets.token_urlsafe(32)
            path.write_text(key)
            path.chmod(0o600)
            return key
