"""The device's own account: libtpu's runtime metrics per host (rounds), the cores' state on a
stall (cores), and the host the others wait for (straggler)."""
