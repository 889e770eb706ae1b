"""The data sets the benchmark knows."""
