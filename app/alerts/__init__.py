"""Alerts on stalled, lost and failed jobs: detection, delivery (webhook, email), ack and silence."""
