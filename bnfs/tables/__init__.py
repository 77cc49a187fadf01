"""Data in: reading files and frames into a :class:`~bnfs.Dataset` (encoding, column
checks, blocks of rows, binning)."""
