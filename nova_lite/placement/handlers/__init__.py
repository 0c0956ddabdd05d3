"""Placement request handlers, one module per URL family.

Each handler is a function of a webob request, in a fixed order: context,
policy, query/body validation, object call, serialisation, headers.
"""
