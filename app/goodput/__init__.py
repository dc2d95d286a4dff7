"""Where a run's time went: goodput and badput per attempt and per training run, MFU, and the
comparison of runs side by side."""
