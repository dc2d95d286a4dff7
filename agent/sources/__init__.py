"""Where the sidecar learns what the training process cannot tell it: identity, device metrics,
TPU node state, stacks of a stalled process, and the log archive. Each source runs in its own
thread, has a timeout, says once when it is unavailable and why, and never touches the child."""
