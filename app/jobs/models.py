"""Tables of the jobs domain: step rollups, the summaries that keep long runs fast to draw."""

from __future__ import annotations

from sqlalchemy import BigInteger, Float, ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column

from app.models import Base

# Bucket widths in steps, one per level: each level merges 16 buckets of the one below, so a chart
# of any range finds a level with a few thousand buckets. Raw steps may be pruned; rollups stay.
LEVEL_WIDTHS = (16, 256, 4096, 65536)


class StepRollup(Base):
    """Step time and input wait of one host over ``LEVEL_WIDTHS[level]`` consecutive steps.

    Sums (not means) are stored so buckets merge exactly when a later batch adds to them; the
    steps of the slowest and fastest step are kept so a chart draws min/max where they happened.
    """

    __tablename__ = "step_rollups"

    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    # Key order serves "this job, this level, these hosts, this step range" with index seeks.
    level: Mapped[int] = mapped_column(Integer, primary_key=True)
    host_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    bucket: Mapped[int] = mapped_column(BigInteger, primary_key=True)  # first step of the bucket
    n: Mapped[int] = mapped_column(Integer)
    sum_duration: Mapped[float] = mapped_column(Float)
    min_duration: Mapped[float] = mapped_column(Float)
    max_duration: Mapped[float] = mapped_column(Float)
    min_step: Mapped[int] = mapped_column(BigInteger)  # the step of min_duration
    max_step: Mapped[int] = mapped_column(BigInteger)  # the step of max_duration
    sum_wait: Mapped[float] = mapped_column(Float)
    max_wait: Mapped[float] = mapped_column(Float)
    max_wait_step: Mapped[int] = mapped_column(BigInteger)
    last_ts: Mapped[float] = mapped_column(Float)
