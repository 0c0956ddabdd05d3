"""Power states of a guest as the hypervisor reports them.

The numbers are Nova's, so ``instances.power_state`` reads the same as in a
Nova database. The compute manager maps them to vm states; the driver only
reports them (``ComputeDriver.get_info``).
"""

NOSTATE = 0x00
RUNNING = 0x01
PAUSED = 0x03
SHUTDOWN = 0x04
CRASHED = 0x06
SUSPENDED = 0x07

STATE_MAP = {
    NOSTATE: 'pending',
    RUNNING: 'running',
    PAUSED: 'paused',
    SHUTDOWN: 'shutdown',
    CRASHED: 'crashed',
    SUSPENDED: 'suspended',
}
