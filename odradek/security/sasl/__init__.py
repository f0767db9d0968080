"""SASL on the broker: the exchange before any other request (`authenticator`) and its mechanisms."""
