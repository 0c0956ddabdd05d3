"""OpenStack Tempest's compute API tests against a nova_lite lab.

``tox -e tempest`` (``python -m tests.tempest``) stacks a Keystone lab in a
private state directory, writes ``tempest.conf`` from what the running lab
reports (doc/tempest.md lists every switch and why) and runs Tempest,
unmodified, from PyPI.
"""
