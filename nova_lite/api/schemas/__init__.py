"""JSON schemas of compute API bodies and query strings, as data."""
