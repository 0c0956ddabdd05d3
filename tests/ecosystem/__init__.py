"""openstacksdk's and python-openstackclient's functional tests against a
nova_lite lab.

``tox -e ecosystem`` (``python -m tests.ecosystem``) stacks a Keystone lab
in a private state directory, gives it the projects, networks and
clouds.yaml of a devstack cloud, and runs both projects' own functional
tests for the image and network services, unmodified, from their wheels
(doc/ecosystem-suites.md).
"""
