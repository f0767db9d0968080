"""Producer state (idempotence) and, later, the transaction coordinator."""
