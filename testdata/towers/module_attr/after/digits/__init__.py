"""Digit records: decoding (codec) and the training input (train)."""
