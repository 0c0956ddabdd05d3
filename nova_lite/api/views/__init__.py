"""Representations of API resources at a request's microversion."""
