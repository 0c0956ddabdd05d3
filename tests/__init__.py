import nova_lite  # noqa: F401  (selects the concurrency backend first)

import time
import types

import futurist._thread
from oslo_messaging._drivers import impl_fake

# NOTE(nova_lite): two waits of the in-process test bus cost far more here
# than they ever would in production, where neither is used:
# - an idle worker of oslo.messaging's executor notices a shutdown only when
#   its queue wait times out (futurist's 1 s), so each of the dozens of
#   service stops a test module makes waited up to a second;
# - the fake:// driver looks for new messages every 50 ms, and one boot
#   crosses the bus a dozen times.
futurist._thread.ThreadWorker.MAX_IDLE_FOR = 0.05
impl_fake.time = types.SimpleNamespace(
    time=time.time, sleep=lambda seconds: time.sleep(min(seconds, 0.01)))
