"""JSON schemas of placement request bodies and query strings.

Names carry the microversion they start at (``..._V1_14``).
"""
