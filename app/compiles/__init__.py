"""Compilations: what the framework compiled, how long it took, and which functions keep recompiling."""
