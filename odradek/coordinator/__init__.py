"""The group coordinator: classic consumer groups and committed offsets (issue 5).

`coordinator.GroupCoordinator` is a pure state machine driven by handlers and by timers; each
operation returns a `results.Result` (response and records); `runtime.CoordinatorRuntime`
appends the records to ``__consumer_offsets``, applies them, settles the result, replays the
topic at start-up and runs the timers on the broker's scheduler.
"""
