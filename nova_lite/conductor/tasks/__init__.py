"""Conductor tasks: the steps of a build, one module per concern.

* :mod:`.build` - the super conductor's schedule-and-build (API level);
* :mod:`.reschedule` - the cell conductor's retry on an alternate host;
* :mod:`.bury` - putting unschedulable instances into cell0 in ERROR;
* :mod:`.common` - what they share (claims, faults, instance creation).
"""
