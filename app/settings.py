"""Server settings: one pydantic-settings class, read from ``TPUWATCH_*`` variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent


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

    max_body_bytes: int = 16 << 20  # compressed or not, what we read off the socket
    max_decoded_bytes: int = 64 << 20  # after gunzip
    max_batch_events: int = 50_000
    max_event_message_chars: int = 256 * 1024

    lost_after_seconds: float = 90.0  # no word from any host for this long: lost
    stall_floor_seconds: float = 120.0
    first_step_grace_seconds: float = 1800.0

    # Alerts (app/alerts): one leader evaluates every alert_eval_seconds and delivers.
    alerts_enabled: bool = True
    alert_eval_seconds: float = 5.0
    alert_repeat_seconds: float = 4 * 3600.0  # as Alertmanager's default repeat_interval
    long_phase_grace_seconds: float = 1800.0  # a reported phase (checkpoint save) may take this long
    alert_webhook_url: str = Field("", description="server-wide Slack-compatible webhook for every project")
    alert_email_to: str = Field("", description="server-wide alert address(es), comma-separated")
    alert_delivery_timeout: float = 5.0
    smtp_host: str = ""
    smtp_port: int = 25
    smtp_from: str = "tpuwatch@localhost"
    smtp_starttls: bool = False
    smtp_user: str = ""
    smtp_password: str = ""
    public_url: str = Field("http://127.0.0.1:8000", description="base of the links in alert messages")

    jobs_page_size: int = 200

    # Per token (or client address), per worker process; 0 turns the limit off.
    rate_limit_per_second: float = 50.0
    rate_limit_burst: int = 200

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
