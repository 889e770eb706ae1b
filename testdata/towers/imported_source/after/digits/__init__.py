"""Reading and writing the digit records."""
