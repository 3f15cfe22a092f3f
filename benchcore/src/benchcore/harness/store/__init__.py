"""The run folder's files, and the file helpers every stage shares.

- ``files``     atomic writes (temp file + rename), folder and run locks, regular-file reads
- ``regular``   regular files only: not_regular, open_regular, open_regular_fd (light imports, for `benchcore usage`)
- ``planfile``  ``plan.json``: cells, packets, orders (read and write)
"""
