"""Provider trees as placement holds them, and the writes between two.

Shared by the compute's resource tracker (which keeps the trees and asks
the virt driver to edit them) and the report client (which reads them
from placement and sends the difference), so it lives outside both: a
client must not import service code, and nothing here talks to
placement or knows which process it runs in.

* :mod:`.tree`: :class:`~.tree.ProviderTree`, an in-memory forest;
* :mod:`.diff`: :func:`~.diff.diff_trees`, the placement writes that
  turn one tree into another.
"""
