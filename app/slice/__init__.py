"""A job of many hosts seen as one slice: heatmaps, percentile bands, hosts paged, and which host."""
