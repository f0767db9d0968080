"""The group coordinator: classic consumer groups and committed offsets (issue 5).

`coordinator.GroupCoordinator` is a pure state machine driven by handlers and by ``tick``;
`runtime.CoordinatorRuntime` persists its records in ``__consumer_offsets`` and replays them
at start-up.
"""
