"""A small benchmark of data sets and a trainer."""
