"""The transaction coordinator's runtime: ``__transaction_state``, markers, timers, verification."""
