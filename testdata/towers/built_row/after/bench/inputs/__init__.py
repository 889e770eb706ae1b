"""Inputs of the benchmark: the data sets and their shared batching."""
