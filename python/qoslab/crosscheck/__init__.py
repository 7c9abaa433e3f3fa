"""Cross-checks against the Linux kernel: a scenario's network built of network namespaces
and veth pairs, its policies applied with ``tc``, its open-loop traffic replayed and the
kernel's figures set beside qoslab's (:mod:`qoslab.crosscheck.check`).

The sender and receiver modules run as programs inside the namespaces and import nothing
but the standard library, so that they start quickly.
"""
