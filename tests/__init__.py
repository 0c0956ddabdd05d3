import nova_lite  # noqa: F401  (selects the concurrency backend first)
