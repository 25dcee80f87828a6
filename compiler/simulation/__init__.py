"""Whole-game playouts at scale: jobs, seeds, local and Ray runners, statistics, sweeps (`cardc simulate`)."""
