"""The test double: everything `odradek.embedded.Broker` and the pytest plugin are made of.

- `runtime`: one listener in front of internal brokers that reset and restore replace, a clock
  a test can freeze; `thread_backend` and `subprocess_backend` run it for `Broker`;
- `faults`, `journal`, `shapes` and `intercept`: injected faults and the request journal, on
  the dispatcher's one hook, with errors placed where the message schemas say;
- `control`: the HTTP control endpoint (``odradek run --control-port``);
- `pytest_plugin`: the ``kafka_broker``, ``kafka_clean`` and ``kafka_topic`` fixtures.

See docs/testing.md.
"""
