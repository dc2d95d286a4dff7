"""Post-mortems of failed and lost runs: what happened, in order, and what to do about it."""
